import { SEED_TEMPLATES } from '../../../src/modules/notifications/migrations/seed-templates';
import {
  canonicalJson,
  dedupeHash,
  escapeLabels,
  type MessagePayload,
  templateContext,
} from '../../../src/modules/notifications/delivery/payload';
import { wellFormed } from '../../../src/platform/text/well-formed';
import {
  parseTemplate,
  queryEscape,
  renderTemplate,
  TemplateError,
} from '../../../src/modules/notifications/rendering/go-template';
import {
  decodeEntities,
  isDangerousUrl,
  markdownToHtml,
  markdownToPlaintext,
} from '../../../src/modules/notifications/rendering/markdown';
import { parseInboxQuery } from '../../../src/modules/notifications/inbox/inbox-query';
import { parseUuid } from '../../../src/modules/notifications/inbox/uuid';
import { loadNotificationsConfig } from '../../../src/modules/notifications/notifications.config';

const context = (labels: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
  baseUrl: 'https://dev.example.com',
  data: { UserName: 'Ann', UserEmail: 'ann+x@example.com', Labels: labels, Data: {}, ...extra },
});

describe('Go-template subset', () => {
  it('every seeded template (title, body, actions) parses', () => {
    for (const t of SEED_TEMPLATES) {
      expect(() => parseTemplate(t.title)).not.toThrow();
      expect(() => parseTemplate(t.body)).not.toThrow();
      for (const action of t.actions) {
        expect(() => parseTemplate(action.label)).not.toThrow();
        expect(() => parseTemplate(action.url)).not.toThrow();
      }
    }
  });

  it('fields, base_url, urlquery pipelines', () => {
    expect(
      renderTemplate(
        '{{ base_url }}/r?otp={{.Labels.otp}}&email={{.UserEmail | urlquery}}',
        context({ otp: 'c0de' }),
      ),
    ).toBe('https://dev.example.com/r?otp=c0de&email=ann%2Bx%40example.com');
    expect(queryEscape("a b&c'")).toBe('a+b%26c%27');
  });

  it('if / else if / else / end, not, and, or, eq; missing keys render empty', () => {
    const tpl = '{{if .Labels.a}}A{{else if and .Labels.b (not .Labels.c)}}B{{else}}C{{end}}';
    expect(renderTemplate(tpl, context({ a: '1' }))).toBe('A');
    expect(renderTemplate(tpl, context({ b: '1' }))).toBe('B');
    expect(renderTemplate(tpl, context({ b: '1', c: '1' }))).toBe('C');
    expect(renderTemplate('{{ or .Labels.x "fallback" }}', context())).toBe('fallback');
    expect(renderTemplate('{{ if eq .Labels.k "v" }}yes{{ end }}', context({ k: 'v' }))).toBe('yes');
    expect(renderTemplate('[{{.Labels.missing}}]', context())).toBe('[]');
    expect(
      renderTemplate('{{ if .Labels.x }}{{ if .Labels.y }}xy{{ end }}x{{ end }}', context({ x: '1' })),
    ).toBe('x');
  });

  it('fields are own keys only (no prototype members)', () => {
    expect(
      renderTemplate('[{{.Labels.constructor}}][{{.Labels.toString}}][{{.Labels.k}}]', context({ k: 'v' })),
    ).toBe('[][][v]');
  });

  it('trim markers', () => {
    expect(renderTemplate('a  {{- .UserName -}}  b', context())).toBe('aAnnb');
    expect(renderTemplate('a {{ .UserName }} b', context())).toBe('a Ann b');
  });

  it('parse errors are TemplateError', () => {
    expect(() => parseTemplate('{{ if .X }}')).toThrow(TemplateError);
    expect(() => parseTemplate('{{ end }}')).toThrow(TemplateError);
    expect(() => parseTemplate('{{ nosuchfunc }}')).toThrow(TemplateError);
    expect(() => parseTemplate('{{ .X')).toThrow(TemplateError);
    expect(() => parseTemplate('{{ range .X }}{{ end }}')).toThrow(TemplateError);
  });

  it('the account templates render with Coder label names', () => {
    const created = SEED_TEMPLATES.find((t) => t.name === 'User account created')!;
    expect(
      renderTemplate(
        created.body,
        context({ created_account_name: 'bob', created_account_user_name: 'Bob B', initiator: 'admin' }),
      ),
    ).toBe(
      'New user account **bob** has been created.\n\nThis new user account was created for **Bob B** by **admin**.',
    );
    expect(renderTemplate(created.body, context({ created_account_name: 'bob', initiator: 'admin' }))).toBe(
      'New user account **bob** has been created.\n\nThis new user account was created by **admin**.',
    );
  });
});

describe('Markdown → plain text (marked lexer)', () => {
  it.each([
    ['# Notification Title', 'Notification Title'],
    ['This is the __content__.', 'This is the content.'],
    [
      'Hi **bob**,\n\nUse the [link](http://x/y?a=1&b=2) below.',
      'Hi bob,\n\nUse the link (http://x/y?a=1&b=2) below.',
    ],
    ['- a\n- b *c*\n\n1. x\n2. y', '- a\n- b c\n\n1. x\n2. y'],
    ['a &amp; b &#95; `code` ~~gone~~', 'a & b _ code gone'],
    ['line1  \nline2', 'line1\nline2'],
    ['> quoted **text**', 'quoted text'],
    ['```\ncode block\n```', 'code block'],
    ['![alt text](http://img)', 'alt text'],
    ['<b>html</b> kept text', 'html kept text'],
    ['<http://auto.link>', 'http://auto.link'],
    ['', ''],
  ])('%j → %j', (markdown, text) => {
    expect(markdownToPlaintext(markdown)).toBe(text);
  });

  it('email HTML: raw HTML shown as text, dangerous link targets dropped, safe ones kept', () => {
    const html = markdownToHtml(
      'hi <script>alert(1)</script> **b** [x](javascript:alert(1)) [ok](https://a.example/c) [rel](/r) ![pic](data:text/html,x)\n\n<div onclick="x">block</div>',
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<div');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('data:');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain(
      '<strong>b</strong> x <a href="https://a.example/c">ok</a> <a href="/r">rel</a> pic',
    );
  });

  it.each([
    ['javascript:alert(1)', true],
    ['JavaScript:x', true],
    ['java\tscript:x', true],
    [' vbscript:x', true],
    ['data:text/html,x', true],
    ['https://a.example', false],
    ['HTTP://a.example', false],
    ['mailto:a@example.com', false],
    ['/relative/path', false],
    ['#anchor', false],
    ['page?x=a:b', false],
  ])('isDangerousUrl(%j) = %s', (href, dangerous) => {
    expect(isDangerousUrl(href)).toBe(dangerous);
  });

  it('decodes entities', () => {
    expect(decodeEntities('&lt;a&gt; &#x41; &#66; &quot; &unknown;')).toBe('<a> A B " &unknown;');
  });
});

describe('payload and dedupe', () => {
  const payload = (labels: Record<string, string>): MessagePayload => ({
    _version: '1.2',
    notification_name: 'n',
    notification_template_id: 't',
    user_id: 'u',
    user_email: 'e',
    user_name: 'n',
    user_username: 'n',
    actions: [],
    labels,
    data: null,
    targets: null,
  });
  const day = new Date('2026-11-21T10:00:00Z');

  it('label order does not change the hash; method, day, targets and content do', () => {
    const a = dedupeHash('t', 'u', 'smtp', payload({ x: '1', y: '2' }), [], day);
    expect(dedupeHash('t', 'u', 'smtp', payload({ y: '2', x: '1' }), [], day)).toBe(a);
    expect(
      dedupeHash('t', 'u', 'smtp', payload({ y: '2', x: '1' }), [], new Date('2026-11-21T23:59:59Z')),
    ).toBe(a);
    expect(dedupeHash('t', 'u', 'inbox', payload({ x: '1', y: '2' }), [], day)).not.toBe(a);
    expect(
      dedupeHash('t', 'u', 'smtp', payload({ x: '1', y: '2' }), [], new Date('2026-11-22T00:00:00Z')),
    ).not.toBe(a);
    expect(dedupeHash('t', 'u', 'smtp', payload({ x: '1', y: '2' }), ['a'], day)).not.toBe(a);
    expect(dedupeHash('t', 'u', 'smtp', payload({ x: '1', y: '3' }), [], day)).not.toBe(a);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"e":2,"f":1}]},"b":1}',
    );
  });

  it('label values are escaped except the custom notification texts', () => {
    expect(escapeLabels({ name: 'a_b [x](y) <i> & *', custom_title: '**bold**' })).toEqual({
      name: 'a&#95;b &#91;x&#93;&#40;y&#41; &lt;i&gt; &amp; &#42;',
      custom_title: '**bold**',
    });
  });

  it('lone surrogates become U+FFFD (jsonb refuses them); pairs and __proto__ keys survive', () => {
    expect(wellFormed('a\ud800b\udc00c\ud83d\ude00')).toBe('a\ufffdb\ufffdc\ud83d\ude00');
    expect(escapeLabels({ custom_title: 'x\udbff', name: '\udfff_' })).toEqual({
      custom_title: 'x\ufffd',
      name: '\ufffd&#95;',
    });
    const data = wellFormed(
      JSON.parse('{"__proto__":{"k":"\\ud800"},"list":["\\udc00",1,null]}') as Record<string, unknown>,
    );
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(JSON.stringify(data)).toBe('{"__proto__":{"k":"\ufffd"},"list":["\ufffd",1,null]}');
  });

  it('the template context maps Go field names', () => {
    const ctx = templateContext({ ...payload({ k: 'v' }), user_email: 'e@x' }, 'http://b');
    expect(ctx.data).toMatchObject({ UserEmail: 'e@x', Labels: { k: 'v' }, Data: {} });
  });
});

describe('UUID and inbox query parsing (Coder semantics)', () => {
  it('parses the forms Go accepts', () => {
    const id = '0e7e121d-7e38-42f6-8454-1ef7ad8d5f95';
    expect(parseUuid(id.toUpperCase())).toEqual({ uuid: id });
    expect(parseUuid(id.replace(/-/g, ''))).toEqual({ uuid: id });
    expect(parseUuid(`{${id}}`)).toEqual({ uuid: id });
    expect(parseUuid(`urn:uuid:${id}`)).toEqual({ uuid: id });
    expect(parseUuid('abc')).toEqual({ error: 'invalid UUID length: 3' });
    expect(parseUuid(id.replace('0', 'z'))).toEqual({ error: 'invalid UUID format' });
  });

  it('collects every query problem in order; credentials are not excess params', () => {
    const params = new URLSearchParams(
      'targets=abc,%200e7e121d-7e38-42f6-8454-1ef7ad8d5f95&templates=x&foo=1&foo=2&token=t',
    );
    try {
      parseInboxQuery(params, 'list');
      throw new Error('expected an error');
    } catch (error) {
      expect((error as { fields: unknown[] }).fields).toEqual([
        { field: 'targets', detail: 'Query param "targets" has invalid values: abc' },
        { field: 'templates', detail: 'Query param "templates" has invalid values: x' },
        { field: 'foo', detail: 'Query param "foo" is not a valid query param' },
      ]);
    }
    expect(parseInboxQuery(new URLSearchParams('read_status=&targets='), 'list')).toEqual({
      targets: [],
      templates: [],
      readStatus: 'all',
      startingBefore: undefined,
    });
    expect(parseInboxQuery(new URLSearchParams('format=plaintext'), 'watch').format).toBe('plaintext');
    expect(parseInboxQuery(new URLSearchParams('format=html'), 'watch').format).toBe('markdown');
  });
});

describe('module configuration', () => {
  it('defaults, the embedded poll, and the dispatch timeout below the lease period', () => {
    expect(loadNotificationsConfig({})).toMatchObject({
      fetchIntervalMs: 5000,
      leaseCount: 100,
      maxSendAttempts: 5,
      inboxEnabled: true,
    });
    expect(loadNotificationsConfig({}, { embedded: true }).fetchIntervalMs).toBe(60_000);
    expect(
      loadNotificationsConfig({ NOTIFICATIONS_FETCH_INTERVAL_MS: '200' }, { embedded: true }).fetchIntervalMs,
    ).toBe(200);
    expect(() =>
      loadNotificationsConfig({
        NOTIFICATIONS_LEASE_PERIOD_MS: '1000',
        NOTIFICATIONS_DISPATCH_TIMEOUT_MS: '1000',
      }),
    ).toThrow(/NOTIFICATIONS_DISPATCH_TIMEOUT_MS must be less than NOTIFICATIONS_LEASE_PERIOD_MS/);
    expect(() => loadNotificationsConfig({ NOTIFICATIONS_MAX_SEND_ATTEMPTS: 'many' })).toThrow(
      /NOTIFICATIONS_MAX_SEND_ATTEMPTS/,
    );
  });
});

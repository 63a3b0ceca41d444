import { request as httpRequest } from 'node:http';
import type { CreatedUser } from '../helpers/factories';
import { fakeAnthropic, fakeOpenAi, type FakeProvider } from '../helpers/fake-ai-providers';
import { createTestApp, type TestApp } from '../helpers/test-app';

const CENTRAL_OPENAI = 'sk-central-openai-0123456789';
const CENTRAL_ANTHROPIC = 'sk-ant-central-0123456789';
const OWN_KEY = 'sk-user-own-key-abcdefghijkl';

interface Interception {
  id: string;
  provider: string;
  provider_name: string;
  model: string;
  client: string | null;
  credential_kind: string;
  credential_hint: string;
  initiator: { username: string };
  error_type?: string;
  token_usages: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_write_input_tokens: number;
    metadata: Record<string, number>;
  }[];
  user_prompts: { prompt: string }[];
  tool_usages: { tool: string; input: string }[];
  metadata: Record<string, unknown>;
}

/** The AI gateway (issue 18): the data plane against fake OpenAI and Anthropic providers, the records, the API. */
describe('AI gateway', () => {
  let t: TestApp;
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let owner: CreatedUser;
  let alice: CreatedUser;
  let base: string;

  beforeAll(async () => {
    openai = await fakeOpenAi();
    anthropic = await fakeAnthropic();
    t = await createTestApp({
      env: {
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'openai-main', type: 'openai', base_url: openai.url, key: CENTRAL_OPENAI },
          { name: 'claude', type: 'anthropic', base_url: anthropic.url, key: CENTRAL_ANTHROPIC },
          // The OpenAI SDK's form of a base URL (issue 33.10) and a short name (issue 31.11).
          { name: 'o', type: 'openai', base_url: `${openai.url}/v1/`, key: CENTRAL_OPENAI },
          // Anthropic configured the same way (`/v1`, no trailing slash).
          { name: 'claude-v1', type: 'anthropic', base_url: `${anthropic.url}/v1`, key: CENTRAL_ANTHROPIC },
        ]),
        AI_GATEWAY_BYOK: 'true',
        AI_GOVERNANCE_USER_LIMIT: '10',
      },
    });
    base = await t.listen();
    owner = await t.factories.admin({ username: 'aiowner' });
    alice = await t.factories.user({ username: 'aialice' });
  });
  afterAll(async () => {
    await t.close();
    await openai.close();
    await anthropic.close();
  });

  const call = (
    provider: string,
    path: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    who: CreatedUser = alice,
  ) =>
    fetch(`${base}/api/v2/aigateway/${provider}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${who.token}`, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  /** The interceptions API as the owner, waiting for records written after the response. */
  async function interceptions(q = '', expected?: number): Promise<Interception[]> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await t
        .http()
        .get('/api/v2/aigateway/interceptions')
        .query({ q })
        .set('Service-Session-Token', owner.token);
      expect(res.status).toBe(200);
      if (expected === undefined || res.body.count >= expected) return res.body.results as Interception[];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`fewer than ${expected} interceptions for "${q}"`);
  }

  it('routes a percent-encoded provider segment on its decoded name and keeps the API path (issue 31.11)', async () => {
    const body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] };
    // `open%61i-main` is `openai-main`; the upstream path is what follows the segment, never a slice of it.
    const encoded = await call('open%61i-main', '/v1/chat/completions?x=%2F1', body);
    expect(encoded.status).toBe(200);
    expect(openai.seen.at(-1)!.path).toBe('/v1/chat/completions?x=%2F1');
    // A one-letter name (the old slicing answered `Invalid URL`), with a base URL ending in /v1/.
    const short = await call('%6F', '/v1/chat/completions', body);
    expect(short.status).toBe(200);
    expect(openai.seen.at(-1)!.path).toBe('/v1/chat/completions');
    // Dot segments would leave the provider's base path once the URL API resolves them.
    const before = openai.seen.length;
    // fetch would resolve them itself: a raw request line, as an attacker sends it.
    const dots = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: new URL(base).hostname,
          port: new URL(base).port,
          path: '/api/v2/aigateway/openai-main/v1/%2e%2e/%2E%2E/admin',
          method: 'POST',
          headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'application/json' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.once('error', reject);
      request.end(JSON.stringify(body));
    });
    expect(dots).toBe(400);
    expect(openai.seen.length).toBe(before);
    expect((await call('nope%2Fopenai-main', '/v1/chat/completions', body)).status).toBe(404);
  });

  it('a base_url ending in /v1 or /v1/ gives one /v1 upstream, for OpenAI and Anthropic (issue 33.10)', async () => {
    const openaiV1 = await call('o', '/v1/chat/completions', {
      model: 'gpt-v1-base',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(openaiV1.status).toBe(200);
    expect(openai.seen.at(-1)!.path).toBe('/v1/chat/completions');
    const anthropicV1 = await call('claude-v1', '/v1/messages', {
      model: 'claude-v1-base',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(anthropicV1.status).toBe(200);
    expect(anthropic.seen.at(-1)!.path).toBe('/v1/messages');
    expect(anthropic.seen.at(-1)!.headers['x-api-key']).toBe(CENTRAL_ANTHROPIC);
  });

  it('proxies a non-streamed chat completion with the centralized key and records it', async () => {
    const res = await call(
      'openai-main',
      '/v1/chat/completions',
      {
        model: 'gpt-4.1',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'Say hi' },
        ],
      },
      { 'User-Agent': 'claude-cli/1.0.0 (external, cli)' },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe('Hello from the fake OpenAI.');
    const seen = openai.seen.at(-1)!;
    expect(seen.headers.authorization).toBe(`Bearer ${CENTRAL_OPENAI}`);
    expect(seen.path).toBe('/v1/chat/completions');
    const [record] = await interceptions('model:gpt-4.1', 1);
    expect(record).toMatchObject({
      provider: 'openai',
      provider_name: 'openai-main',
      model: 'gpt-4.1',
      client: 'claude-code',
      credential_kind: 'centralized',
      initiator: { username: 'aialice' },
      user_prompts: [{ prompt: 'Say hi' }],
      token_usages: [
        { input_tokens: 30, output_tokens: 7, cache_read_input_tokens: 0, cache_write_input_tokens: 0 },
      ],
    });
    expect(record!.credential_hint).not.toContain(CENTRAL_OPENAI);
    // Coder's AIBridgeTokenUsage carries metadata (issue 33.10).
    expect(record!.token_usages[0]).toHaveProperty('metadata', { prompt_cached: 0 });
  });

  it('streams chat completions chunk by chunk; tool calls thread the next request', async () => {
    openai.script.push({
      toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      cacheRead: 12,
      chunkDelayMs: 20,
    });
    const res = await call('openai-main', '/v1/chat/completions', {
      model: 'gpt-stream',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value).toString());
    }
    expect(chunks.length).toBeGreaterThan(3); // not buffered into one piece
    expect(chunks.join('')).toContain('data: [DONE]');
    // The tool's result comes back in a second request: the same thread.
    const followUp = await call('openai-main', '/v1/chat/completions', {
      model: 'gpt-stream',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_weather_1', content: 'sunny' },
      ],
    });
    expect(followUp.status).toBe(200);
    const records = await interceptions('model:gpt-stream', 2);
    const first = records.find((r) => r.tool_usages.length > 0)!;
    expect(first.tool_usages).toEqual([
      expect.objectContaining({ tool: 'get_weather', input: '{"city":"Paris"}' }),
    ]);
    expect(first.token_usages[0]).toMatchObject({
      input_tokens: 30,
      output_tokens: 7,
      cache_read_input_tokens: 12,
    });
    const sessions = await t
      .http()
      .get('/api/v2/aigateway/sessions')
      .query({ q: 'model:gpt-stream' })
      .set('Service-Session-Token', owner.token);
    expect(sessions.body.count).toBe(1);
    expect(sessions.body.sessions[0]).toMatchObject({ id: first.id, threads: 1, models: ['gpt-stream'] });
    const detail = await t
      .http()
      .get(`/api/v2/aigateway/sessions/${first.id}`)
      .set('Service-Session-Token', owner.token);
    expect(detail.status).toBe(200);
    expect(detail.body.threads).toHaveLength(1);
    expect(detail.body.threads[0]).toMatchObject({
      id: first.id,
      credential_kind: 'centralized',
      prompt: 'Weather in Paris?',
    });
    // AIBridgeSessionThreadsTokenUsage: the provider's other token counts (Coder's names), summed by key (issue 33.10).
    expect(first.token_usages[0]!.metadata).toEqual({ prompt_cached: 12 });
    const cachedInSession = records.reduce((sum, r) => sum + r.token_usages[0]!.cache_read_input_tokens, 0);
    expect(detail.body.token_usage_summary).toHaveProperty('metadata', { prompt_cached: cachedInSession });
    expect(detail.body.threads[0].token_usage).toHaveProperty('metadata', { prompt_cached: cachedInSession });
    expect(detail.body.threads[0].agentic_actions[0].token_usage).toHaveProperty('metadata', {
      prompt_cached: 12,
    });
    expect(sessions.body.sessions[0].token_usage_summary).not.toHaveProperty('metadata');
    expect(detail.body.threads[0].agentic_actions).toHaveLength(2);
    expect(detail.body.threads[0].agentic_actions[0].tool_calls[0]).toMatchObject({
      id: 'call_weather_1',
      tool: 'get_weather',
    });
  });

  it('groups by the client session key, and by the interception itself without one', async () => {
    const headers = { 'X-AI-Gateway-Session-Id': 'client-session-42' };
    await call(
      'openai-main',
      '/v1/chat/completions',
      { model: 'gpt-keyed', messages: [{ role: 'user', content: 'one' }] },
      headers,
    );
    await call(
      'claude',
      '/v1/messages',
      { model: 'claude-keyed', max_tokens: 10, messages: [{ role: 'user', content: 'two' }] },
      headers,
    );
    await call('openai-main', '/v1/chat/completions', {
      model: 'gpt-alone',
      messages: [{ role: 'user', content: 'three' }],
    });
    for (const model of ['gpt-keyed', 'claude-keyed', 'gpt-alone']) await interceptions(`model:${model}`, 1);
    const keyed = await t
      .http()
      .get('/api/v2/aigateway/sessions')
      .query({ q: 'session_id:client-session-42' })
      .set('Service-Session-Token', owner.token);
    expect(keyed.body.count).toBe(1);
    expect(keyed.body.sessions[0]).toMatchObject({
      id: 'client-session-42',
      threads: 2,
      providers: ['anthropic', 'openai'],
      last_prompt: 'two',
    });
    const [alone] = await interceptions('model:gpt-alone', 1);
    const single = await t
      .http()
      .get('/api/v2/aigateway/sessions')
      .query({ q: 'model:gpt-alone' })
      .set('Service-Session-Token', owner.token);
    expect(single.body.sessions[0].id).toBe(alone!.id);
    const tooLong = await call(
      'openai-main',
      '/v1/chat/completions',
      { model: 'x', messages: [] },
      { 'X-AI-Gateway-Session-Id': 'x'.repeat(257) },
    );
    expect(tooLong.status).toBe(400);
  });

  it('Anthropic messages: streamed tool use and cache tokens are recorded', async () => {
    anthropic.script.push({
      toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: '{"path":"README.md"}' }],
      cacheRead: 100,
      cacheWrite: 50,
    });
    const res = await call('claude', '/v1/messages', {
      model: 'claude-sonnet',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Read the README' }] }],
    });
    const text = await res.text();
    expect(text).toContain('event: message_stop');
    expect(anthropic.seen.at(-1)!.headers['x-api-key']).toBe(CENTRAL_ANTHROPIC);
    const [record] = await interceptions('model:claude-sonnet', 1);
    expect(record).toMatchObject({
      provider: 'anthropic',
      provider_name: 'claude',
      user_prompts: [{ prompt: 'Read the README' }],
      tool_usages: [{ tool: 'read_file', input: '{"path":"README.md"}' }],
      token_usages: [
        { input_tokens: 25, output_tokens: 11, cache_read_input_tokens: 100, cache_write_input_tokens: 50 },
      ],
    });
  });

  it('OpenAI responses API, streamed', async () => {
    const res = await call('openai-main', '/v1/responses', {
      model: 'gpt-resp',
      stream: true,
      input: 'Summarize',
    });
    expect(await res.text()).toContain('response.completed');
    const [record] = await interceptions('model:gpt-resp', 1);
    expect(record).toMatchObject({
      user_prompts: [{ prompt: 'Summarize' }],
      token_usages: [{ input_tokens: 40, output_tokens: 9 }],
    });
  });

  it('BYOK: the user key passes through and only a masked hint is kept', async () => {
    const res = await call(
      'openai-main',
      '/v1/chat/completions',
      { model: 'gpt-byok', messages: [{ role: 'user', content: 'mine' }] },
      { 'X-AI-Gateway-Provider-Key': OWN_KEY },
    );
    expect(res.status).toBe(200);
    expect(openai.seen.at(-1)!.headers.authorization).toBe(`Bearer ${OWN_KEY}`);
    const [record] = await interceptions('model:gpt-byok', 1);
    expect(record!.credential_kind).toBe('byok');
    expect(record!.credential_hint).toBe('sk-u...ijkl');
    const all = await t
      .http()
      .get('/api/v2/aigateway/interceptions')
      .set('Service-Session-Token', owner.token);
    expect(JSON.stringify(all.body)).not.toContain(OWN_KEY);
  });

  it("BYOK as Coder's AI Bridge does it: the devplane token in the governance header, the user's key in the provider's own header (issue 33.10)", async () => {
    // An unmodified OpenAI SDK: Authorization carries the user's key.
    const openaiSdk = await fetch(`${base}/api/v2/aigateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'X-Service-AI-Governance-Token': alice.token,
        Authorization: `Bearer ${OWN_KEY}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ model: 'gpt-governed', messages: [{ role: 'user', content: 'mine' }] }),
    });
    expect(openaiSdk.status).toBe(200);
    expect(openai.seen.at(-1)!.headers.authorization).toBe(`Bearer ${OWN_KEY}`);
    // devplane's token never reaches the provider.
    expect(JSON.stringify(openai.seen.at(-1)!.headers)).not.toContain(alice.token);
    const [record] = await interceptions('model:gpt-governed', 1);
    expect(record).toMatchObject({
      credential_kind: 'byok',
      initiator: expect.objectContaining({ username: 'aialice' }),
    });
    // Claude Code / the Anthropic SDK: x-api-key carries the user's key.
    const anthropicSdk = await fetch(`${base}/api/v2/aigateway/claude/v1/messages`, {
      method: 'POST',
      headers: {
        'X-Service-AI-Governance-Token': alice.token,
        'x-api-key': OWN_KEY,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        model: 'claude-governed',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(anthropicSdk.status).toBe(200);
    expect(anthropic.seen.at(-1)!.headers['x-api-key']).toBe(OWN_KEY);
    expect(JSON.stringify(anthropic.seen.at(-1)!.headers)).not.toContain(alice.token);
    // The Anthropic SDK with ANTHROPIC_AUTH_TOKEN sends the key as Bearer; with the /v1 base URL too.
    const anthropicBearer = await fetch(`${base}/api/v2/aigateway/claude-v1/v1/messages`, {
      method: 'POST',
      headers: {
        'X-Service-AI-Governance-Token': alice.token,
        Authorization: `Bearer ${OWN_KEY}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        model: 'claude-governed',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(anthropicBearer.status).toBe(200);
    expect(anthropic.seen.at(-1)!.path).toBe('/v1/messages');
    expect(anthropic.seen.at(-1)!.headers['x-api-key']).toBe(OWN_KEY);
    expect(anthropic.seen.at(-1)!.headers.authorization).toBeUndefined();
    // The alternative header with the governance header: X-AI-Gateway-Provider-Key wins.
    const alternative = await fetch(`${base}/api/v2/aigateway/claude/v1/messages`, {
      method: 'POST',
      headers: {
        'X-Service-AI-Governance-Token': alice.token,
        'X-AI-Gateway-Provider-Key': `${OWN_KEY}-alt`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        model: 'claude-governed',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(alternative.status).toBe(200);
    expect(anthropic.seen.at(-1)!.headers['x-api-key']).toBe(`${OWN_KEY}-alt`);
    const governed = await interceptions('model:claude-governed', 3);
    expect(governed.every((r) => r.credential_kind === 'byok')).toBe(true);
    expect(JSON.stringify(governed)).not.toContain(OWN_KEY);
    // The governance token is the caller's credential: its scopes apply.
    const narrow = await t.factories.token(alice.user, { scopes: ['user:read'] });
    const narrowed = await fetch(`${base}/api/v2/aigateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'X-Service-AI-Governance-Token': narrow,
        Authorization: `Bearer ${OWN_KEY}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ model: 'gpt-governed', messages: [] }),
    });
    expect(narrowed.status).toBe(403);
    // Without the governance header, the token in Authorization is devplane's, as before: the centralized key.
    const classic = await call('openai-main', '/v1/chat/completions', {
      model: 'gpt-classic',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(classic.status).toBe(200);
    expect(openai.seen.at(-1)!.headers.authorization).toBe(`Bearer ${CENTRAL_OPENAI}`);
    // A bad governance token is 401 whatever the provider key.
    const bad = await fetch(`${base}/api/v2/aigateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-Service-AI-Governance-Token': 'nope', Authorization: `Bearer ${OWN_KEY}` },
      body: '{}',
    });
    expect(bad.status).toBe(401);
    // A wrong governance token is not rescued by a valid devplane token in Authorization.
    const wrongWithValid = await fetch(`${base}/api/v2/aigateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      headers: { 'X-Service-AI-Governance-Token': 'nope', Authorization: `Bearer ${alice.token}` },
      body: '{}',
    });
    expect(wrongWithValid.status).toBe(401);
  });

  it('provider errors reach the client unchanged and are recorded', async () => {
    openai.script.push({ error: { status: 429, type: 'rate_limit_error', message: 'slow down' } });
    const res = await call('openai-main', '/v1/chat/completions', {
      model: 'gpt-error',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: { type: 'rate_limit_error', message: 'slow down', code: null },
    });
    const [record] = await interceptions('model:gpt-error', 1);
    expect(record!.error_type).toBe('rate_limit_error');
  });

  it('records concurrent requests written together, and prompts holding NUL or a lone surrogate', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call('openai-main', '/v1/chat/completions', {
          model: 'gpt-batch',
          messages: [{ role: 'user', content: i === 0 ? 'nul \u0000 and \ud800 here' : `prompt ${i}` }],
        }),
      ),
    );
    for (const res of responses) {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const records = await interceptions('model:gpt-batch', 30);
    expect(records).toHaveLength(30);
    expect(new Set(records.map((record) => record.id)).size).toBe(30);
    const prompts = records.flatMap((record) => record.user_prompts.map((prompt) => prompt.prompt));
    expect(prompts).toContain('nul  and \ufffd here');
    expect(prompts.filter((prompt) => prompt.startsWith('prompt '))).toHaveLength(29);
  });

  it('refuses unknown providers (404), anonymous callers (401) and narrow tokens (403)', async () => {
    expect((await call('nope', '/v1/chat/completions', {})).status).toBe(404);
    const anonymous = await fetch(`${base}/api/v2/aigateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    const narrow = await t.factories.token(alice.user, { scopes: ['user:read'] });
    expect(
      (await call('openai-main', '/v1/chat/completions', {}, {}, { ...alice, token: narrow })).status,
    ).toBe(403);
    // The alias path works too.
    const alias = await fetch(`${base}/api/v2/ai-gateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-alias', messages: [{ role: 'user', content: 'alias' }] }),
    });
    expect(alias.status).toBe(200);
  });

  it('filters, paging and their 400s; members read nothing', async () => {
    const get = (path: string, query: Record<string, string>, who = owner) =>
      t.http().get(`/api/v2/aigateway/${path}`).query(query).set('Service-Session-Token', who.token);
    expect(
      (await get('sessions', { q: 'provider:anthropic' })).body.sessions.every((s: { providers: string[] }) =>
        s.providers.includes('anthropic'),
      ),
    ).toBe(true);
    const clients = await get('interceptions', { q: 'client:claude-code,unknown' });
    expect(
      clients.body.results.every((r: Interception) => r.client === 'claude-code' || r.client === null),
    ).toBe(true);
    expect(clients.body.count).toBeGreaterThan(1);
    const byInitiator = await get('interceptions', { q: 'initiator:aialice', limit: '2' });
    expect(byInitiator.body.results).toHaveLength(2);
    expect((await get('sessions', { limit: '0' })).body.message).toBe('Invalid pagination limit value.');
    expect((await get('sessions', { limit: '1001' })).status).toBe(400);
    const both = await get('sessions', { after_session_id: 'client-session-42', offset: '2' });
    expect(both.status).toBe(400);
    const unknown = await get('sessions', { after_session_id: 'no-such-session' });
    expect(unknown.body.message).toBe('after_session_id: session "no-such-session" not found');
    const cursor = await get('sessions', { after_session_id: 'client-session-42' });
    expect(cursor.status).toBe(200);
    expect(cursor.body.sessions.map((s: { id: string }) => s.id)).not.toContain('client-session-42');
    const badTime = await get('sessions', { q: 'started_after:yesterday' });
    expect(badTime.status).toBe(400);
    expect(badTime.body.message).toBe('Invalid session search query.');
    const badKey = await get('interceptions', { q: 'flavour:mint' });
    expect(badKey.body.message).toBe('Invalid interception search query.');
    expect((await get('sessions/unknown-session', {})).status).toBe(404);
    expect((await get('sessions/unknown-session', {})).body.message).toBe('Session not found.');
    const member = await get('sessions', { q: 'initiator:me' }, alice);
    expect(member.body).toEqual({ count: 0, sessions: [] });
    expect((await get('models', {})).body).toEqual(expect.arrayContaining(['gpt-4.1', 'claude-sonnet']));
    expect((await get('clients', {})).body).toEqual(expect.arrayContaining(['claude-code', 'Unknown']));
  });

  it('AI seats: has_ai_seat for users who used the gateway, and one audit entry for the first use', async () => {
    const me = await t.http().get('/api/v2/users/aialice').set('Service-Session-Token', owner.token);
    expect(me.body.has_ai_seat).toBe(true);
    const other = await t.http().get('/api/v2/users/aiowner').set('Service-Session-Token', owner.token);
    expect(other.body.has_ai_seat).toBe(false);
    const list = await t.http().get('/api/v2/users').set('Service-Session-Token', owner.token);
    expect(list.body.users.find((u: { username: string }) => u.username === 'aialice').has_ai_seat).toBe(
      true,
    );
    const audit = await t
      .http()
      .get('/api/v2/audit')
      .query({ q: 'resource_type:ai_seat' })
      .set('Service-Session-Token', owner.token);
    expect(audit.body.count).toBe(1);
  });

  it('administrators manage provider instances; keys are never returned', async () => {
    const created = await t
      .http()
      .post('/api/v2/aigateway/providers')
      .set('Service-Session-Token', owner.token)
      .send({ name: 'second', type: 'openai', base_url: openai.url, key: 'sk-second-key' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'second', type: 'openai', has_key: true });
    const list = await t.http().get('/api/v2/aigateway/providers').set('Service-Session-Token', owner.token);
    expect(JSON.stringify(list.body)).not.toContain('sk-second-key');
    const sealed: { sealed_key: string }[] = await t.dataSource.query(
      `SELECT sealed_key FROM ai_gateway_providers WHERE name = 'second'`,
    );
    expect(sealed[0]!.sealed_key).not.toContain('sk-second-key');
    expect(
      (await t.http().get('/api/v2/aigateway/providers').set('Service-Session-Token', alice.token)).status,
    ).toBe(403);
    const reserved = await t
      .http()
      .post('/api/v2/aigateway/providers')
      .set('Service-Session-Token', owner.token)
      .send({ name: 'sessions', type: 'openai', base_url: openai.url });
    expect(reserved.status).toBe(400);
    expect(
      (await t.http().delete('/api/v2/aigateway/providers/second').set('Service-Session-Token', owner.token))
        .status,
    ).toBe(204);
  });
});

describe('AI gateway without BYOK', () => {
  it('refuses a user key with 403', async () => {
    const openai = await fakeOpenAi();
    const t = await createTestApp({
      env: {
        AI_GATEWAY_PROVIDERS: JSON.stringify([{ name: 'o', type: 'openai', base_url: openai.url, key: 'k' }]),
      },
    });
    try {
      const user = await t.factories.user();
      const res = await t
        .http()
        .post('/api/v2/aigateway/o/v1/chat/completions')
        .set('Authorization', `Bearer ${user.token}`)
        .set('X-AI-Gateway-Provider-Key', 'sk-mine')
        .send({ model: 'm', messages: [] });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Bring Your Own Key (BYOK) mode is not enabled.');
      expect(openai.seen).toHaveLength(0);
      const seat = await t
        .http()
        .get(`/api/v2/users/${user.user.name}`)
        .set('Service-Session-Token', user.token);
      expect(seat.body.has_ai_seat).toBe(false);
    } finally {
      await t.close();
      await openai.close();
    }
  });
});

import {
  effectiveShare,
  forwardablePort,
  forwardedPort,
  pathAppTarget,
  setsSessionCookie,
  shareAdmits,
  stripSessionCookies,
  stripSessionQuery,
  subdomainAppTarget,
} from '../../../src/modules/workspaces/apps/app-routing';
import { parseTemplateDefinition } from '../../../src/modules/workspaces/template-definition';
import { wildcardAccessFrom } from '../../../src/modules/workspaces/workspaces.config';

describe('workspace app routing (issue 50 item 2)', () => {
  it('reads path-based app URLs; no trailing slash means the redirect', () => {
    expect(pathAppTarget('/@alice/dev.main/apps/code/a/b?x=1')).toEqual({
      owner: 'alice',
      workspace: 'dev',
      agent: 'main',
      slugOrPort: 'code',
      path: '/a/b?x=1',
      basePath: '/@alice/dev.main/apps/code',
      subdomain: false,
    });
    expect(pathAppTarget('/@alice/dev/apps/code?x=1')).toMatchObject({ agent: null, path: null });
    expect(pathAppTarget('/@alice/dev/apps/')).toBeNull();
    expect(pathAppTarget('/api/v2/users/me')).toBeNull();
    expect(pathAppTarget('/@alice/%E0%A4%A/apps/code/')).toBeNull();
  });

  it('reads subdomain hosts under the wildcard suffix only', () => {
    expect(subdomainAppTarget('code--main--dev--alice.apps.test:8080', '/x', '.apps.test')).toMatchObject({
      owner: 'alice',
      workspace: 'dev',
      agent: 'main',
      slugOrPort: 'code',
      path: '/x',
      subdomain: true,
    });
    expect(subdomainAppTarget('apps.test', '/', '.apps.test')).toBeNull();
    expect(subdomainAppTarget('code--main--dev.apps.test', '/', '.apps.test')).toBeNull();
    expect(subdomainAppTarget('a.code--main--dev--alice.apps.test', '/', '.apps.test')).toBeNull();
    expect(subdomainAppTarget('code--main--dev--alice.other.test', '/', '.apps.test')).toBeNull();
  });

  it('ports: numbers are ports, forwarded from 1024 and never the agent own', () => {
    expect(forwardedPort('8080')).toBe(8080);
    expect(forwardedPort('code')).toBeNull();
    expect(forwardedPort('70000')).toBeNull();
    expect(forwardablePort(1023)).toBe(false);
    expect(forwardablePort(1024)).toBe(true);
    expect(forwardablePort(47080)).toBe(false);
  });

  it('sharing: the narrower of the app and the template wins; who each level admits', () => {
    expect(effectiveShare('public', undefined)).toBe('owner');
    expect(effectiveShare('public', 'organization')).toBe('organization');
    expect(effectiveShare('authenticated', 'public')).toBe('authenticated');
    expect(effectiveShare('nonsense', 'public')).toBe('owner');
    const anonymous = { signedIn: false, canConnect: false, inOrganization: false };
    const member = { signedIn: true, canConnect: false, inOrganization: true };
    const outsider = { signedIn: true, canConnect: false, inOrganization: false };
    expect(shareAdmits('public', anonymous)).toBe(true);
    expect(shareAdmits('authenticated', anonymous)).toBe(false);
    expect(shareAdmits('authenticated', outsider)).toBe(true);
    expect(shareAdmits('organization', outsider)).toBe(false);
    expect(shareAdmits('organization', member)).toBe(true);
    expect(shareAdmits('owner', member)).toBe(false);
    expect(shareAdmits('owner', { ...outsider, canConnect: true })).toBe(true);
  });

  it('strips the session credential from what the app sees and sets', () => {
    expect(
      stripSessionCookies('coder_session_token=a; theme=dark; service_session_token=b; csrf_token=c'),
    ).toBe('theme=dark');
    expect(stripSessionCookies('coder_session_token=a')).toBeUndefined();
    expect(stripSessionQuery('/x?coder_session_token=a&y=1')).toBe('/x?y=1');
    expect(stripSessionQuery('/x?coder_session_token=a')).toBe('/x');
    expect(stripSessionQuery('/x?y=1')).toBe('/x?y=1');
    expect(setsSessionCookie('coder_session_token=x; Path=/')).toBe(true);
    expect(setsSessionCookie('app=1; Path=/')).toBe(false);
  });

  it('validates the template definition fields and WILDCARD_ACCESS_URL', () => {
    const ok = parseTemplateDefinition({
      max_share_level: 'public',
      apps: [
        {
          slug: 'a',
          url: 'http://127.0.0.1:1/',
          share: 'public',
          subdomain: true,
          healthcheck: { url: 'http://127.0.0.1:1/h' },
        },
      ],
    });
    expect(ok.apps![0]).toMatchObject({
      share: 'public',
      subdomain: true,
      healthcheck: { interval: 5, threshold: 3 },
    });
    for (const [definition, field] of [
      [{ max_share_level: 'everyone' }, 'max_share_level'],
      [{ apps: [{ slug: 'a', share: 'world' }] }, 'apps[0].share'],
      [{ apps: [{ slug: 'a', subdomain: 'yes' }] }, 'apps[0].subdomain'],
      [{ apps: [{ slug: 'a', url: 'ftp://x' }] }, 'apps[0].url'],
      [
        { apps: [{ slug: 'a', healthcheck: { url: 'http://x', interval: 0 } }] },
        'apps[0].healthcheck.interval',
      ],
      [{ apps: [{ slug: 'a', healthcheck: {} }] }, 'apps[0].healthcheck.url'],
    ] as const) {
      try {
        parseTemplateDefinition(definition);
        throw new Error(`accepted ${JSON.stringify(definition)}`);
      } catch (error) {
        expect((error as { fields?: { field: string }[] }).fields?.[0]?.field).toBe(field);
      }
    }
    expect(wildcardAccessFrom({})).toBeNull();
    expect(wildcardAccessFrom({ WILDCARD_ACCESS_URL: '*.apps.example.com' })).toEqual({
      protocol: 'http',
      suffix: '.apps.example.com',
      port: '',
    });
    expect(wildcardAccessFrom({ WILDCARD_ACCESS_URL: 'https://*.apps.example.com:8443' })).toMatchObject({
      port: '8443',
    });
    expect(() => wildcardAccessFrom({ WILDCARD_ACCESS_URL: 'apps.example.com' })).toThrow(
      /WILDCARD_ACCESS_URL/,
    );
  });
});

import http from 'node:http';
import net from 'node:net';
import { WebSocket } from 'ws';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../../src/modules/workspaces/workspaces.config';
import type { CreatedUser } from '../helpers/factories';
import { killAgents, type ProvisionerProcess, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { appDefinition } from './app-server';
import { coderClient, type Json, workspacesDirOf, workspaceWithAgent } from './helpers';

function freePort(): number {
  return 20_000 + Math.floor(Math.random() * 20_000);
}

/** Raw HTTP (a Host header of our choice, no redirect following). */
function request(
  base: string,
  pathname: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(pathname, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Workspace apps and port forwarding through the agent (issue 50 item 2): the app runs inside the workspace
 * (its own network namespace in the sandbox mode), the proxy reaches it only through the agent's tcp streams.
 */
describe('workspace apps proxy', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  const provisioners: ProvisionerProcess[] = [];
  let workspaceId: string;
  let port: number;
  let tightPort: number;
  const client = coderClient(() => t.url!);
  const isolationBefore = process.env.WORKSPACE_ISOLATION;
  const sandboxed = resolveIsolation('auto').mode === 'sandbox';

  beforeAll(async () => {
    if (resolveIsolation('auto').mode === 'user') {
      process.stdout.write(
        'apps e2e: no bubblewrap (Debian package bubblewrap): the provisioner runs with WORKSPACE_ISOLATION=none\n',
      );
      process.env.WORKSPACE_ISOLATION = 'none';
    }
    t = await createTestApp({
      env: {
        WILDCARD_ACCESS_URL: '*.apps.devplane.test',
        DEVPLANE_AGENT_HEARTBEAT_MS: '500',
        // Sharing path-based apps is Coder's opt-in (the last test turns both off again).
        DANGEROUS_ALLOW_PATH_APP_SHARING: 'true',
        DANGEROUS_ALLOW_PATH_APP_SITE_OWNER_ACCESS: 'true',
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'appadmin' });
    alice = await t.factories.user({ username: 'appalice' });
    bob = await t.factories.user({ username: 'appbob' });
    port = freePort();
    tightPort = port + 1;
    const main = await workspaceWithAgent(t, {
      adminToken: admin.token,
      ownerToken: alice.token,
      name: 'apps',
      definition: appDefinition(port, 'public'),
    });
    provisioners.push(main.provisioner);
    workspaceId = main.workspaceId;
    // The same apps under a template that allows no sharing beyond the owner (the default).
    const tight = await workspaceWithAgent(t, {
      adminToken: admin.token,
      ownerToken: alice.token,
      name: 'tight',
      definition: appDefinition(tightPort),
    });
    provisioners.push(tight.provisioner);
  }, 180_000);

  afterAll(async () => {
    for (const provisioner of provisioners) await provisioner.kill('SIGKILL');
    killAgents(workspacesDirOf(t));
    await t?.close();
    if (isolationBefore === undefined) delete process.env.WORKSPACE_ISOLATION;
    else process.env.WORKSPACE_ISOLATION = isolationBefore;
  });

  it("shows the apps with their sharing levels; the agent's healthcheck drives health", async () => {
    const apps = await waitFor(
      async () => {
        const workspace = await client.json(
          await client.api(alice.token, 'GET', `/api/v2/workspaces/${workspaceId}`),
          200,
        );
        const found = workspace.latest_build.resources[0].agents[0].apps as Json[];
        // A first check may run before the startup script's server listens (threshold 1: unhealthy at
        // once); the next interval's check makes it healthy, as a user sees it settle.
        const health = (slug: string) => found.find((app) => app.slug === slug)?.health;
        return health('web') === 'healthy' && health('down') === 'unhealthy' ? found : undefined;
      },
      30_000,
      'app health',
    );
    expect(apps.map((app) => [app.slug, app.health, app.sharing_level])).toEqual([
      ['web', 'healthy', 'owner'],
      ['pub', 'disabled', 'public'],
      ['authn', 'disabled', 'authenticated'],
      ['org', 'disabled', 'organization'],
      ['down', 'unhealthy', 'owner'],
    ]);
    expect(apps[0].healthcheck).toEqual({
      url: `http://127.0.0.1:${port}/healthz`,
      interval: 1,
      threshold: 1,
    });
  });

  it('opens an app through the agent: trailing-slash redirect, path and body, no session credential for the app', async () => {
    if (sandboxed) {
      // The app lives in the workspace's network namespace: the server cannot reach it directly.
      const direct = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve('open')));
        socket.once('error', () => resolve('closed'));
      });
      expect(direct).toBe('closed');
    }
    const redirect = await request(t.url!, '/@appalice/apps/apps/web?x=1', {
      headers: { 'Coder-Session-Token': alice.token },
    });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.location).toBe('/@appalice/apps/apps/web/?x=1');

    const got = await request(
      t.url!,
      `/@appalice/apps.main/apps/web/some/page?q=1&coder_session_token=${alice.token}`,
      {
        method: 'POST',
        headers: { Cookie: `coder_session_token=${alice.token}; theme=dark`, 'Content-Type': 'text/plain' },
        body: 'hello app',
      },
    );
    expect(got.status).toBe(200);
    const seen = JSON.parse(got.text) as Json;
    expect(seen).toEqual({
      url: '/base/some/page?q=1',
      method: 'POST',
      body: 'hello app',
      cookie: 'theme=dark',
      session_header: null,
      authorization: null,
    });
    // The app cannot set devplane's session cookie; its own cookies pass.
    expect(got.headers['set-cookie']).toEqual(['app_cookie=1; Path=/']);

    const byHeader = JSON.parse(
      (await request(t.url!, '/@me/apps/apps/web/', { headers: { 'Coder-Session-Token': alice.token } }))
        .text,
    ) as Json;
    expect(byHeader.session_header).toBeNull();
    const byBearer = JSON.parse(
      (
        await request(t.url!, '/@appalice/apps/apps/web/', {
          headers: { Authorization: `Bearer ${alice.token}` },
        })
      ).text,
    ) as Json;
    expect(byBearer.authorization).toBeNull();
    // Unknown agent, app or workspace: 404.
    for (const route of [
      '/@appalice/apps.other/apps/web/',
      '/@appalice/apps/apps/nope/',
      '/@appalice/nope/apps/web/',
    ])
      expect((await request(t.url!, route, { headers: { 'Coder-Session-Token': alice.token } })).status).toBe(
        404,
      );
    // An app whose workspace server is down: 502 with Coder's message.
    const down = await request(t.url!, '/@appalice/apps/apps/down/', {
      headers: { 'Coder-Session-Token': alice.token },
    });
    expect(down.status).toBe(502);
    expect((JSON.parse(down.text) as Json).message).toBe('Bad Gateway');
  });

  it('relays a WebSocket app (text and binary) through the proxy', async () => {
    const socket = new WebSocket(`${t.url!.replace('http', 'ws')}/@appalice/apps/apps/web/ws`, {
      headers: { 'Coder-Session-Token': alice.token },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const received: [string, boolean][] = [];
    socket.on('message', (data: Buffer, binary: boolean) => received.push([data.toString(), binary]));
    socket.send('ping through the agent');
    socket.send(Buffer.from('binary bytes'), { binary: true });
    await waitFor(() => (received.length === 2 ? true : undefined), 10_000, 'echo');
    expect(received).toEqual([
      ['ping through the agent', false],
      ['binary bytes', true],
    ]);
    socket.close();
    // An upgrade another member may not open is refused before it happens.
    const refused = await new Promise<number>((resolve) => {
      const other = new WebSocket(`${t.url!.replace('http', 'ws')}/@appalice/apps/apps/web/ws`, {
        headers: { 'Coder-Session-Token': bob.token },
      });
      other.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      other.once('error', () => undefined);
    });
    expect(refused).toBe(404);
  });

  it('sharing levels: owner-only apps are 404 to others, 401 (or the sign-in redirect) anonymously; public only when the template allows it', async () => {
    const as = (token: string | null): Record<string, string> =>
      token ? { 'Coder-Session-Token': token } : {};
    const status = async (route: string, token: string | null) =>
      (await request(t.url!, route, { headers: as(token) })).status;
    expect(await status('/@appalice/apps/apps/web/', bob.token)).toBe(404);
    expect(await status('/@appalice/apps/apps/web/', null)).toBe(401);
    const browser = await request(t.url!, '/@appalice/apps/apps/web/', { headers: { Accept: 'text/html' } });
    expect(browser.status).toBe(303);
    expect(browser.headers.location).toBe(
      `/login?redirect=${encodeURIComponent('/@appalice/apps/apps/web/')}`,
    );
    // A site owner may open the owner's app (Coder's owner role).
    expect(await status('/@appalice/apps/apps/web/', admin.token)).toBe(200);
    expect(await status('/@appalice/apps/apps/pub/', null)).toBe(200);
    expect(await status('/@appalice/apps/apps/authn/', null)).toBe(401);
    expect(await status('/@appalice/apps/apps/authn/', bob.token)).toBe(200);
    expect(await status('/@appalice/apps/apps/org/', bob.token)).toBe(200);
    // The tight template allows only the owner: its public app is the owner's.
    expect(await status('/@appalice/tight/apps/pub/', null)).toBe(401);
    expect(await status('/@appalice/tight/apps/pub/', bob.token)).toBe(404);
    expect(await status('/@appalice/tight/apps/pub/', alice.token)).toBe(200);
    // Anonymous callers learn nothing about what does not exist either.
    expect(await status('/@appalice/nothing/apps/pub/', null)).toBe(401);
  });

  it("by default path-based apps open only for the workspace's users (Coder's dangerous flags off); subdomain apps keep their sharing level", async () => {
    const config = t.app.get<WorkspacesConfig>(WORKSPACES_CONFIG);
    config.allowPathAppSharing = false;
    config.allowPathAppSiteOwnerAccess = false;
    const status = async (route: string, token: string | null, host?: string) =>
      (
        await request(t.url!, route, {
          headers: { ...(token ? { 'Coder-Session-Token': token } : {}), ...(host ? { Host: host } : {}) },
        })
      ).status;
    try {
      expect(await status('/@appalice/apps/apps/authn/', bob.token)).toBe(404);
      expect(await status('/@appalice/apps/apps/pub/', null)).toBe(401);
      expect(await status('/@appalice/apps/apps/web/', admin.token)).toBe(404);
      expect(await status('/@appalice/apps/apps/web/', alice.token)).toBe(200);
      expect(await status('/', null, 'pub--main--apps--appalice.apps.devplane.test')).toBe(200);
      expect(await status('/', bob.token, 'authn--main--apps--appalice.apps.devplane.test')).toBe(200);
      expect(await status('/', admin.token, 'web--main--apps--appalice.apps.devplane.test')).toBe(200);
    } finally {
      config.allowPathAppSharing = true;
      config.allowPathAppSiteOwnerAccess = true;
    }
  });

  it('refuses a narrow token (403) and a wrong token like no token', async () => {
    const narrow = await t.factories.token(alice.user, { scopes: ['workspace:read'] });
    const refused = await request(t.url!, '/@appalice/apps/apps/web/', {
      headers: { 'Coder-Session-Token': narrow },
    });
    expect(refused.status).toBe(403);
    const connectOnly = await t.factories.token(alice.user, { scopes: ['workspace:application_connect'] });
    expect(
      (
        await request(t.url!, '/@appalice/apps/apps/web/', {
          headers: { 'Coder-Session-Token': connectOnly },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await request(t.url!, '/@appalice/apps/apps/web/', {
          headers: { 'Coder-Session-Token': 'wrong-token' },
        })
      ).status,
    ).toBe(401);
  });

  it('forwards listening ports from 1024 (not the agent own), to the owner only', async () => {
    const forwarded = await request(t.url!, `/@appalice/apps.main/apps/${port}/healthz`, {
      headers: { 'Coder-Session-Token': alice.token },
    });
    expect(forwarded.status).toBe(200);
    expect(forwarded.text).toBe('ok');
    expect(
      (
        await request(t.url!, `/@appalice/apps/apps/${port}/`, {
          headers: { 'Coder-Session-Token': bob.token },
        })
      ).status,
    ).toBe(404);
    expect(
      (await request(t.url!, '/@appalice/apps/apps/80/', { headers: { 'Coder-Session-Token': alice.token } }))
        .status,
    ).toBe(400);
    expect(
      (
        await request(t.url!, '/@appalice/apps/apps/47080/', {
          headers: { 'Coder-Session-Token': alice.token },
        })
      ).status,
    ).toBe(400);
  });

  it('serves subdomain apps and ports under WILDCARD_ACCESS_URL', async () => {
    const web = await request(t.url!, '/x?y=2', {
      headers: { Host: 'web--main--apps--appalice.apps.devplane.test', 'Coder-Session-Token': alice.token },
    });
    expect(web.status).toBe(200);
    expect((JSON.parse(web.text) as Json).url).toBe('/base/x?y=2');
    const byPort = await request(t.url!, '/healthz', {
      headers: {
        Host: `${port}--main--apps--appalice.apps.devplane.test:80`,
        'Coder-Session-Token': alice.token,
      },
    });
    expect(byPort.text).toBe('ok');
    expect(
      (
        await request(t.url!, '/', {
          headers: { Host: 'web--main--apps--appalice.apps.devplane.test', 'Coder-Session-Token': bob.token },
        })
      ).status,
    ).toBe(404);
    // Another host is the API as usual.
    expect((await request(t.url!, '/api/v2/buildinfo')).status).toBe(200);
  });

  it('logs app and port sessions in the connection log and the audit log', async () => {
    const rows = await waitFor(
      async () => {
        const found = (await t.dataSource.query(
          `SELECT type, slug_or_port FROM connection_logs WHERE type IN ('workspace_app', 'port_forwarding')`,
        )) as { type: string; slug_or_port: string }[];
        return found.some((row) => row.type === 'port_forwarding') &&
          found.some((row) => row.slug_or_port === 'web')
          ? found
          : undefined;
      },
      10_000,
      'connection log',
    );
    expect(rows).toEqual(expect.arrayContaining([{ type: 'port_forwarding', slug_or_port: String(port) }]));
    const audited = (await t.dataSource.query(
      `SELECT action, resource_type, resource_target FROM audit_logs WHERE resource_type IN ('workspace_app', 'workspace_agent')`,
    )) as Json[];
    expect(audited).toEqual(
      expect.arrayContaining([
        { action: 'open', resource_type: 'workspace_app', resource_target: 'web' },
        { action: 'connect', resource_type: 'workspace_agent', resource_target: `main:${port}` },
      ]),
    );
    const viaApi = await client.json(
      await client.api(admin.token, 'GET', '/api/v2/connectionlog?limit=100'),
      200,
    );
    expect(viaApi.connection_logs.map((entry: Json) => entry.type)).toEqual(
      expect.arrayContaining(['workspace_app', 'port_forwarding']),
    );
  });
});

import { InboxWatchGateway } from '../../src/modules/notifications/inbox/inbox-watch.gateway';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { EventBus } from '../../src/platform/events/event-bus.service';
import { RealtimeConnections } from '../../src/platform/realtime/realtime-connections.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import {
  appEnv,
  EMBEDDED,
  fastQueueEnv,
  inboxCount,
  sleep,
  waitFor,
  WatchClient,
} from '../notifications/helpers';
import { PROBE, RealtimeProbeModule, SseClient } from '../platform/realtime-probe';

const WATCH = '/api/v2/notifications/inbox/watch';
const PUBLIC_ORIGIN = 'https://devplane.example';
const EXTRA_ORIGIN = 'https://app.example';
const EVIL = 'https://evil.example';

/**
 * Issue 11.6: the inbox WebSocket ignored Origin and revocation. Cookie-authenticated upgrades
 * (and SSE streams) must come from PUBLIC_URL's origin or CORS_ORIGINS; revoking a session or
 * token, suspending or deleting a user closes its sockets on every instance. The sockets live on
 * a second instance and the revocations happen on the first (one instance on embedded PGlite,
 * whose NOTIFY does not cross connections).
 */
describe('11.6 WebSocket Origin and revocation', () => {
  let a: TestApp;
  let b: TestApp;
  let wsB: string;
  let admin: CreatedUser;
  const clients: WatchClient[] = [];
  const env = appEnv(
    fastQueueEnv({ PUBLIC_URL: `${PUBLIC_ORIGIN}/`, CORS_ORIGINS: `${EXTRA_ORIGIN}, https://other.example` }),
  );

  beforeAll(async () => {
    a = await createTestApp({ env, modules: [RealtimeProbeModule] });
    b = EMBEDDED ? a : await createTestApp({ schema: a.schema, env, modules: [RealtimeProbeModule] });
    wsB = (await b.listen()).replace(/^http/, 'ws');
    if (!EMBEDDED) await a.listen();
    admin = await a.factories.admin();
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });

  const watchers = () => b.app.get(InboxWatchGateway).watcherCount();

  async function open(headers: Record<string, string>): Promise<WatchClient> {
    const before = watchers();
    const client = new WatchClient(`${wsB}${WATCH}`, headers);
    clients.push(client);
    await client.opened;
    await waitFor(() => watchers() > before || client.closed, 10_000, 'registered watcher');
    expect(client.closed).toBeUndefined();
    return client;
  }

  function refused(headers: Record<string, string>): Promise<WatchClient> {
    const client = new WatchClient(`${wsB}${WATCH}`, headers);
    clients.push(client);
    return client.opened.then(
      () => {
        throw new Error('the upgrade was accepted');
      },
      async () => {
        await waitFor(() => client.unexpected, 10_000, 'refusal');
        return client;
      },
    );
  }

  async function notify(user: CreatedUser, title: string): Promise<void> {
    const before = await inboxCount(a.dataSource, user.user.id);
    await a.app.get(EventBus).emitAsync('notification.requested', {
      templateId: IDS.customNotification,
      userId: user.user.id,
      labels: { custom_title: title, custom_message: `${title} body` },
      createdBy: 'test',
    });
    await waitFor(async () => (await inboxCount(a.dataSource, user.user.id)) > before, 15_000, 'inbox item');
  }

  const cookie = (token: string) => ({ Cookie: `service_session_token=${token}` });

  describe('Origin', () => {
    it.each([
      ['a foreign origin', EVIL],
      ['a look-alike of PUBLIC_URL', 'https://devplane.example.evil.example'],
      ['PUBLIC_URL on another scheme', 'http://devplane.example'],
      ['the opaque origin "null"', 'null'],
    ])(
      'a cookie-authenticated upgrade from %s is refused before the upgrade, nothing registered',
      async (_name, origin) => {
        const victim = await a.factories.user();
        const before = watchers();
        const client = await refused({ ...cookie(victim.token), Origin: origin });
        expect(client.unexpected!.status).toBe(403);
        expect(JSON.parse(client.unexpected!.body)).toMatchObject({ message: 'Origin not allowed.' });
        expect(watchers()).toBe(before);
        expect(b.app.get(RealtimeConnections).countForUser(victim.user.id)).toBe(0);
      },
    );

    it.each([
      ['PUBLIC_URL', PUBLIC_ORIGIN],
      ['CORS_ORIGINS', EXTRA_ORIGIN],
      ['no Origin (not a browser)', undefined],
    ])('a cookie-authenticated upgrade from %s is accepted and gets the items', async (_name, origin) => {
      const user = await a.factories.user();
      const client = await open({ ...cookie(user.token), ...(origin ? { Origin: origin } : {}) });
      await notify(user, 'allowed origin');
      await waitFor(() => client.frames.length === 1, 15_000, 'frame');
    });

    it('header and query credentials do not depend on Origin (no ambient authority)', async () => {
      const user = await a.factories.user();
      await open({ 'Service-Session-Token': user.token, Origin: EVIL });
      const client = new WatchClient(`${wsB}${WATCH}?service_session_token=${user.token}`, { Origin: EVIL });
      clients.push(client);
      await client.opened;
      await waitFor(
        () => b.app.get(RealtimeConnections).countForUser(user.user.id) === 2,
        10_000,
        'both registered',
      );
    });

    it('an SSE stream with the cookie from a foreign origin is refused (403, nothing streamed); from PUBLIC_URL it streams', async () => {
      const user = await a.factories.user();
      const base = b.url!;
      const evil = new SseClient(`${base}${PROBE}/stream`, { ...cookie(user.token), Origin: EVIL });
      const res = await evil.ready;
      expect(res.statusCode).toBe(403);
      await waitFor(() => evil.ended, 5_000, 'end');
      expect(JSON.parse(evil.text)).toMatchObject({ message: 'Origin not allowed.' });
      const good = new SseClient(`${base}${PROBE}/stream`, { ...cookie(user.token), Origin: PUBLIC_ORIGIN });
      try {
        expect((await good.ready).statusCode).toBe(200);
        await waitFor(() => good.events().length === 1, 5_000, 'hello');
      } finally {
        good.close();
      }
    });
  });

  describe('revocation closes sockets and streams on every instance', () => {
    it('logout closes the sockets of that session only', async () => {
      const user = await a.factories.user();
      const session = await a.factories.token(user.user, { loginType: 'password' });
      const bySession = await open({ ...cookie(session), Origin: PUBLIC_ORIGIN });
      const byOtherToken = await open({ 'Service-Session-Token': user.token });
      const stream = new SseClient(`${b.url!}${PROBE}/stream`, { 'Service-Session-Token': session });
      await stream.ready;
      await waitFor(
        () => b.app.get(RealtimeConnections).countForUser(user.user.id) === 3,
        10_000,
        'three connections',
      );

      const logout = await a.http().post('/api/v2/users/logout').set('Service-Session-Token', session);
      expect(logout.status).toBe(200);
      await waitFor(() => bySession.closed, 10_000, 'session socket closed');
      expect(bySession.closed).toEqual({ code: 4401, reason: 'API key revoked.' });
      await waitFor(() => stream.ended, 10_000, 'session stream ended');

      await notify(user, 'after logout');
      await waitFor(() => byOtherToken.frames.length === 1, 15_000, 'frame on the other token');
      expect(byOtherToken.closed).toBeUndefined();
      expect(bySession.frames).toEqual([]);
    });

    it('deleting an API key closes its sockets', async () => {
      const user = await a.factories.user();
      const key = await a.factories.token(user.user, { name: 'watch-key' });
      const client = await open({ Authorization: `Bearer ${key}` });
      const res = await a
        .http()
        .delete(`/api/v2/users/${user.user.name}/keys/${key.slice(0, 10)}`)
        .set('Service-Session-Token', user.token);
      expect(res.status).toBe(204);
      await waitFor(() => client.closed, 10_000, 'closed');
      expect(client.closed!.code).toBe(4401);
    });

    it('suspending the user closes all of its sockets, and a new upgrade is refused', async () => {
      const user = await a.factories.user();
      const first = await open({ 'Service-Session-Token': user.token });
      const second = await open({ ...cookie(user.token), Origin: EXTRA_ORIGIN });
      const bystander = await a.factories.user();
      const unaffected = await open({ 'Service-Session-Token': bystander.token });
      const res = await a
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set('Authorization', `token ${admin.token}`)
        .send({ login_name: user.user.name, source_id: 0, active: false });
      expect(res.status).toBe(200);
      await waitFor(() => first.closed && second.closed, 10_000, 'closed');
      for (const client of [first, second]) {
        expect(client.closed!.code).toBe(4401);
        expect(client.closed!.reason).toMatch(/^User is not active \(status = "suspended"\)/);
      }
      const again = new WatchClient(`${wsB}${WATCH}`, { 'Service-Session-Token': user.token });
      clients.push(again);
      await waitFor(() => again.closed, 10_000, 'refused again');
      expect(again.closed!.code).toBe(4401);
      await sleep(100);
      expect(unaffected.closed).toBeUndefined();
    });

    it('prohibiting sign-in closes the sockets', async () => {
      const user = await a.factories.user();
      const client = await open({ 'Service-Session-Token': user.token });
      const res = await a
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set('Authorization', `token ${admin.token}`)
        .send({ login_name: user.user.name, source_id: 0, prohibit_login: true });
      expect(res.status).toBe(200);
      await waitFor(() => client.closed, 10_000, 'closed');
      expect(client.closed).toEqual({
        code: 4401,
        reason: 'This account is prohibited from signing in, please contact your site administrator.',
      });
    });

    it('deleting the user closes its sockets', async () => {
      const user = await a.factories.user();
      const client = await open({ 'Service-Session-Token': user.token });
      const res = await a
        .http()
        .delete(`/api/v1/admin/users/${user.user.name}`)
        .set('Authorization', `token ${admin.token}`);
      expect(res.status).toBe(204);
      await waitFor(() => client.closed, 10_000, 'closed');
      expect(client.closed!.code).toBe(4401);
      expect(b.app.get(RealtimeConnections).countForUser(user.user.id)).toBe(0);
    });

    it('a revocation message for a user whose credentials are intact closes nothing', async () => {
      const user = await a.factories.user();
      const client = await open({ 'Service-Session-Token': user.token });
      await a.app.get(RealtimeConnections).revokeUser(user.user.id);
      await sleep(300);
      expect(client.closed).toBeUndefined();
      await notify(user, 'still here');
      await waitFor(() => client.frames.length === 1, 15_000, 'frame');
    });
  });
});

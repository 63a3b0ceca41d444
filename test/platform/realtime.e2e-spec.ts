import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import WebSocket from 'ws';
import { Public } from '../../src/api/access/access.decorators';
import { AuthGuard } from '../../src/modules/auth/auth.guard';
import { RealtimeConnections } from '../../src/platform/realtime/realtime-connections.service';
import { RealtimeHub } from '../../src/platform/realtime/realtime-hub.service';
import { realtimeSubject } from '../../src/platform/realtime/realtime-subjects';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { EMBEDDED, sleep, waitFor, WatchClient } from '../notifications/helpers';
import {
  AdminGateway,
  PROBE,
  ProbeStreamController,
  PublicGateway,
  RealtimeProbeModule,
  SseClient,
  UndeclaredGateway,
} from './realtime-probe';

describe('realtime layer (platform/realtime)', () => {
  let t: TestApp;
  let ws: string;
  let http: string;
  let alice: CreatedUser;
  let admin: CreatedUser;
  const sockets: WebSocket[] = [];
  const streams: SseClient[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      modules: [RealtimeProbeModule],
      env: { REALTIME_MAX_BUFFERED_BYTES: '65536' },
    });
    http = await t.listen();
    ws = http.replace(/^http/, 'ws');
    alice = await t.factories.user();
    admin = await t.factories.admin();
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.terminate();
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t.close());

  function client(path: string, headers: Record<string, string> = {}): WatchClient {
    const c = new WatchClient(`${ws}${PROBE}/${path}`, headers);
    sockets.push(c.socket);
    c.opened.catch(() => undefined);
    return c;
  }

  function sse(headers: Record<string, string> = {}): SseClient {
    const s = new SseClient(`${http}${PROBE}/stream`, headers);
    streams.push(s);
    return s;
  }

  describe('upgrades go through the guard and the access declarations', () => {
    it('an undeclared WebSocket route is refused before the upgrade, with or without credentials', async () => {
      for (const headers of [{}, { 'Service-Session-Token': admin.token }] as Record<string, string>[]) {
        const c = client('undeclared', headers);
        await expect(c.opened).rejects.toThrow(/unexpected response 403/);
        await waitFor(() => c.unexpected, 5_000, 'refusal');
        expect(c.unexpected!.status).toBe(403);
        expect(JSON.parse(c.unexpected!.body)).toMatchObject({ message: 'Route declares no access rule.' });
      }
      expect(t.app.get(UndeclaredGateway).connections).toHaveLength(0);
    });

    it('@Public() accepts anonymous callers', async () => {
      const before = t.app.get(PublicGateway).connections.length;
      const c = client('public');
      await c.opened;
      await waitFor(() => t.app.get(PublicGateway).connections.length > before, 5_000, 'connection');
      expect(t.app.get(PublicGateway).connections.at(-1)!.identity).toBeUndefined();
    });

    it('@Authenticated({ admin }) refuses a member (403) and accepts an administrator; no credential closes 4401', async () => {
      const member = client('admin', { 'Service-Session-Token': alice.token });
      await expect(member.opened).rejects.toThrow(/unexpected response 403/);
      const anonymous = client('admin');
      await waitFor(() => anonymous.closed, 5_000, 'close');
      expect(anonymous.closed!.code).toBe(4401);
      const before = t.app.get(AdminGateway).connections.length;
      const ok = client('admin', { Authorization: `Bearer ${admin.token}` });
      await ok.opened;
      await waitFor(() => t.app.get(AdminGateway).connections.length > before, 5_000, 'connection');
      expect(t.app.get(AdminGateway).connections.at(-1)!.identity).toMatchObject({
        userId: admin.user.id,
        viaCookie: false,
      });
    });
  });

  it('the guard no longer waves non-HTTP contexts through: an undeclared message handler is refused', async () => {
    const guard = t.app.get(AuthGuard);
    class Undeclared {
      handle(): void {}
    }
    @Public()
    class Declared {
      handle(): void {}
    }
    const wsContext = (target: new () => { handle(): void }) => {
      const context = new ExecutionContextHost([{}, {}, undefined], target, target.prototype.handle);
      context.setType('ws');
      return context;
    };
    await expect(guard.canActivate(wsContext(Undeclared))).rejects.toThrow('Route declares no access rule.');
    await expect(guard.canActivate(wsContext(Declared))).resolves.toBe(true);
  });

  describe('hub', () => {
    it('delivers a subject to its subscribers only, and stops after unsubscribe', async () => {
      const hub = t.app.get(RealtimeHub);
      const got: unknown[] = [];
      const other: unknown[] = [];
      const stop = hub.subscribe(realtimeSubject('test', 'a'), (payload) => got.push(payload));
      hub.subscribe(realtimeSubject('test', 'b'), (payload) => other.push(payload));
      await hub.publish(realtimeSubject('test', 'a'), { n: 1 });
      stop();
      await hub.publish(realtimeSubject('test', 'a'), { n: 2 });
      expect(got).toEqual([{ n: 1 }]);
      expect(other).toEqual([]);
      expect(hub.hasSubscribers(realtimeSubject('test', 'a'))).toBe(false);
    });

    (EMBEDDED ? it.skip : it)('fans out to subscribers on another instance (ClusterBus)', async () => {
      const second = await createTestApp({ schema: t.schema });
      try {
        const arrived = new Promise<unknown>((resolve) =>
          second.app.get(RealtimeHub).subscribe(realtimeSubject('test', 'cluster'), resolve),
        );
        await t.app.get(RealtimeHub).publish(realtimeSubject('test', 'cluster'), { from: 'first' });
        await expect(arrived).resolves.toEqual({ from: 'first' });
      } finally {
        await second.close();
      }
    });
  });

  describe('heartbeats', () => {
    let fast: TestApp;
    let fastWs: string;
    beforeAll(async () => {
      fast = await createTestApp({
        schema: t.schema,
        modules: [RealtimeProbeModule],
        env: { REALTIME_HEARTBEAT_MS: '100' },
      });
      fastWs = (await fast.listen()).replace(/^http/, 'ws');
    });
    afterAll(() => fast.close());

    it('pings WebSocket clients; a client that never answers is dropped', async () => {
      const before = fast.app.get(PublicGateway).connections.length;
      const answering = new WebSocket(`${fastWs}${PROBE}/public`);
      const silent = new WebSocket(`${fastWs}${PROBE}/public`, { autoPong: false });
      sockets.push(answering, silent);
      let pings = 0;
      answering.on('ping', () => (pings += 1));
      let silentClosed = false;
      silent.on('close', () => (silentClosed = true));
      await waitFor(() => fast.app.get(PublicGateway).connections.length >= before + 2, 5_000, 'connections');
      await waitFor(() => silentClosed, 5_000, 'silent client dropped');
      await waitFor(() => pings >= 3, 5_000, 'pings');
      expect(answering.readyState).toBe(WebSocket.OPEN);
    });

    it('SSE streams get comment lines', async () => {
      const user = await fast.factories.user();
      const s = new SseClient(`${fast.url!}${PROBE}/stream`, { 'Service-Session-Token': user.token });
      streams.push(s);
      await s.ready;
      await waitFor(() => (s.text.match(/^: ping$/gm) ?? []).length >= 2, 5_000, 'heartbeat comments');
      expect(s.events()).toEqual([{ event: 'hello', data: '' }]);
    });
  });

  describe('backpressure', () => {
    it('a client that does not read is dropped once its unsent bytes pass the limit; a reading one gets everything', async () => {
      const gateway = t.app.get(PublicGateway);
      const before = gateway.connections.length;
      const reader = new WebSocket(`${ws}${PROBE}/public`);
      let received = 0;
      reader.on('message', () => (received += 1));
      sockets.push(reader);
      await waitFor(() => gateway.connections.length === before + 1, 5_000, 'reader connection');
      const stalled = new WebSocket(`${ws}${PROBE}/public`);
      sockets.push(stalled);
      await waitFor(() => gateway.connections.length === before + 2, 5_000, 'stalled connection');
      const [readerConnection, stalledConnection] = gateway.connections.slice(before);
      // The stalled client stops reading from its TCP socket.
      (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
      const frame = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 100; i++) expect(readerConnection!.send(frame)).toBe(true);
      let sent = 0;
      while (!stalledConnection!.closed && sent < 20_000) {
        stalledConnection!.send(frame);
        sent += 1;
        if (sent % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(stalledConnection!.droppedAsSlow).toBe(true);
      expect(stalledConnection!.socket.bufferedAmount).toBeLessThanOrEqual(65_536);
      await waitFor(() => stalledConnection!.closed, 5_000, 'stalled connection gone');
      await waitFor(() => received === 100, 5_000, 'reader frames');
      expect(readerConnection!.closed).toBe(false);
    });
  });

  describe('SSE adapter', () => {
    it('answers text/event-stream with event/id/data framing, hands over Last-Event-ID and delivers hub messages', async () => {
      const s = sse({ 'Service-Session-Token': alice.token, 'Last-Event-ID': '41' });
      const res = await s.ready;
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(res.headers['cache-control']).toContain('no-cache');
      await waitFor(() => s.events().length === 1, 5_000, 'hello');
      expect(s.events()[0]).toEqual({ event: 'hello', data: '41' });
      await waitFor(
        () => t.app.get(RealtimeHub).hasSubscribers(`probe:${alice.user.id}`),
        5_000,
        'subscription',
      );
      await t.app.get(RealtimeHub).publish(realtimeSubject('probe', alice.user.id), 'line one\nline two');
      await waitFor(() => s.events().length === 2, 5_000, 'probe event');
      expect(s.events()[1]).toEqual({ event: 'probe', id: '1', data: 'line one\nline two' });
      expect(s.text).toContain('event: probe\nid: 1\ndata: line one\ndata: line two\n\n');
    });

    it('a stream goes through the guard: no credential is the dialect 401, nothing is streamed', async () => {
      const s = sse();
      const res = await s.ready;
      expect(res.statusCode).toBe(401);
      await waitFor(() => s.ended, 5_000, 'end');
      expect(JSON.parse(s.text)).toMatchObject({ message: expect.any(String) });
    });

    it('a hung-up stream leaves the registry and the hub', async () => {
      const connections = t.app.get(RealtimeConnections);
      const user = await t.factories.user();
      const s = sse({ 'Service-Session-Token': user.token });
      await s.ready;
      await waitFor(() => connections.countForUser(user.user.id) === 1, 5_000, 'registered');
      s.close();
      await waitFor(() => connections.countForUser(user.user.id) === 0, 5_000, 'unregistered');
      await waitFor(
        () => !t.app.get(RealtimeHub).hasSubscribers(`probe:${user.user.id}`),
        5_000,
        'unsubscribed',
      );
      expect(t.app.get(ProbeStreamController).streams.at(-1)!.closed).toBe(true);
    });
  });

  it('closes every connection with 1001 at shutdown', async () => {
    const other = await createTestApp({ schema: t.schema, modules: [RealtimeProbeModule] });
    const url = (await other.listen()).replace(/^http/, 'ws');
    const c = new WatchClient(`${url}${PROBE}/public`);
    sockets.push(c.socket);
    await c.opened;
    await waitFor(() => other.app.get(PublicGateway).connections.length === 1, 5_000, 'connection');
    await other.close();
    await waitFor(() => c.closed, 5_000, 'close');
    expect(c.closed!.code).toBe(1001);
    await sleep(0);
  });
});

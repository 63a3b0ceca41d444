import { ClusterBus } from '../../src/platform/events/cluster-bus.service';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Two app instances on one PostgreSQL: a topic published on one reaches a subscriber on the
 * other through LISTEN/NOTIFY. Needs a PostgreSQL server (DATABASE_URL); the embedded database
 * cannot route NOTIFY between connections, and there the bus is in-process by design.
 */
const embedded = process.env.DATABASE_EMBEDDED === 'true';

describe('cluster bus', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await createTestApp();
    second = await createTestApp({ schema: first.schema });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('delivers locally at once', async () => {
    const received: unknown[] = [];
    const stop = first.app.get(ClusterBus).subscribe('local.topic', (payload) => received.push(payload));
    await first.app.get(ClusterBus).publish('local.topic', { n: 1 });
    stop();
    expect(received).toEqual([{ n: 1 }]);
  });

  (embedded ? it.skip : it)(
    'an event published on one instance reaches a subscriber on the other',
    async () => {
      const arrived = new Promise<unknown>((resolve) => {
        second.app.get(ClusterBus).subscribe('inbox.created', resolve);
      });
      await first.app.get(ClusterBus).publish('inbox.created', { notificationId: 'n-1', userId: '42' });
      await expect(arrived).resolves.toEqual({ notificationId: 'n-1', userId: '42' });
      expect(second.app.get(ClusterBus).crossInstance).toBe(true);
    },
  );
});

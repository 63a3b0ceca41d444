import type { ClusterBus } from '../../../src/platform/events/cluster-bus.service';
import { RealtimeConnection } from '../../../src/platform/realtime/realtime-connection';
import { RealtimeConnections } from '../../../src/platform/realtime/realtime-connections.service';

/** A connection that records its pings in a shared log; `failing` throws instead. */
class FakeConnection extends RealtimeConnection {
  constructor(
    private readonly log: number[],
    private readonly failing = false,
  ) {
    super('websocket', undefined, 1024);
  }

  send(): boolean {
    return true;
  }

  close(): void {
    this.markClosed();
  }

  heartbeat(): void {
    if (this.failing) throw new Error('socket gone');
    this.log.push(this.id);
  }
}

function registry(): RealtimeConnections {
  // beat() touches neither the cluster bus nor the timer (onModuleInit is not called).
  return new RealtimeConnections({} as ClusterBus, { heartbeatMs: 15_000 } as never);
}

describe('RealtimeConnections heartbeat round', () => {
  it('pings every open connection once, a chunk per event-loop turn, so other work runs between chunks', async () => {
    const connections = registry();
    const pings: number[] = [];
    const open = Array.from({ length: 200 }, () => new FakeConnection(pings));
    for (const connection of open) connections.register(connection);

    const round = connections.beat();
    // The first chunk is pinged at once; the rest wait for later turns of the loop.
    expect(pings.length).toBeGreaterThan(0);
    expect(pings.length).toBeLessThan(200);
    let otherWorkRan = false;
    setImmediate(() => (otherWorkRan = true));
    const whenOtherWorkRan: number[] = [];
    setImmediate(() => whenOtherWorkRan.push(pings.length));
    await round;

    expect(otherWorkRan).toBe(true);
    expect(whenOtherWorkRan[0]).toBeLessThan(200);
    expect([...pings].sort((a, b) => a - b)).toEqual(open.map((c) => c.id));
  });

  it('skips connections closed during the round, keeps going past one that throws, and never runs two rounds at once', async () => {
    const connections = registry();
    const pings: number[] = [];
    const open = Array.from({ length: 150 }, (_, i) => new FakeConnection(pings, i === 3));
    for (const connection of open) connections.register(connection);

    const round = connections.beat();
    const overlapping = connections.beat();
    open[149]!.close();
    await Promise.all([round, overlapping]);

    const expected = open.filter((_, i) => i !== 3 && i !== 149).map((c) => c.id);
    expect([...pings].sort((a, b) => a - b)).toEqual(expected);
    expect(connections.count()).toBe(149);
  });
});

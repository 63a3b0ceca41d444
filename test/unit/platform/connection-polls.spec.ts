import { ConnectionPolls } from '../../../src/platform/realtime/connection-polls';
import { RealtimeConnection } from '../../../src/platform/realtime/realtime-connection';

class FakeConnection extends RealtimeConnection {
  constructor() {
    super('websocket', undefined, 1024);
  }
  send(): boolean {
    return true;
  }
  close(): void {
    this.markClosed();
  }
  heartbeat(): void {}
}

/** Lets the pending round (a promise chain) run. */
const settle = () =>
  new Promise((resolve) => jest.requireActual<typeof import('timers')>('timers').setImmediate(resolve));

describe('ConnectionPolls', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('runs a round at once and then every interval until the connection closes', async () => {
    const polls = new ConnectionPolls();
    const connection = new FakeConnection();
    const round = jest.fn(async () => undefined);
    polls.start(connection, 100, round, () => undefined);
    await settle();
    expect(round).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(100);
    await settle();
    expect(round).toHaveBeenCalledTimes(2);
    connection.close();
    jest.advanceTimersByTime(1000);
    await settle();
    expect(round).toHaveBeenCalledTimes(2);
  });

  it('stops when a round answers stop, and on stopAll', async () => {
    const polls = new ConnectionPolls();
    const stopping = jest.fn(async () => 'stop' as const);
    polls.start(new FakeConnection(), 100, stopping, () => undefined);
    const other = jest.fn(async () => undefined);
    polls.start(new FakeConnection(), 100, other, () => undefined);
    await settle();
    polls.stopAll();
    jest.advanceTimersByTime(1000);
    await settle();
    expect(stopping).toHaveBeenCalledTimes(1);
    expect(other).toHaveBeenCalledTimes(1);
  });

  it('reports a failing round and tries again at the next interval', async () => {
    const polls = new ConnectionPolls();
    const errors: unknown[] = [];
    const round = jest.fn().mockRejectedValueOnce(new Error('read failed')).mockResolvedValue(undefined);
    polls.start(new FakeConnection(), 100, round, (error) => errors.push(error));
    await settle();
    expect(errors).toHaveLength(1);
    jest.advanceTimersByTime(100);
    await settle();
    expect(round).toHaveBeenCalledTimes(2);
    polls.stopAll();
  });
});

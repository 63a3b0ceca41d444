import { LeaseLoop } from '../../../src/platform/jobs/lease-loop';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LeaseLoop', () => {
  it('never overlaps rounds, and a kick during a round runs exactly one more round after it', async () => {
    let active = 0;
    let maxActive = 0;
    let rounds = 0;
    let release!: () => void;
    const loop = new LeaseLoop(async () => {
      rounds += 1;
      active += 1;
      maxActive = Math.max(maxActive, active);
      if (rounds === 1) await new Promise<void>((resolve) => (release = resolve));
      active -= 1;
    }, fail);
    loop.kick();
    loop.kick();
    loop.kick();
    await tick();
    expect(rounds).toBe(1);
    release();
    await loop.settled();
    for (let i = 0; i < 5 && loop.running; i += 1) await tick();
    await loop.settled();
    expect(rounds).toBe(2);
    expect(maxActive).toBe(1);
  });

  it('runs again while a round says more is due, and stops when told', async () => {
    let rounds = 0;
    const loop = new LeaseLoop(async () => ++rounds < 3, fail);
    loop.kick();
    await loop.settled();
    expect(rounds).toBe(3);
    await loop.stop();
    loop.kick();
    await loop.settled();
    expect(rounds).toBe(3);
  });

  it('reports a failed round and keeps working', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const loop = new LeaseLoop(
      async () => {
        rounds += 1;
        if (rounds === 1) throw new Error('database down');
      },
      (error) => errors.push(error),
    );
    loop.kick();
    await loop.settled();
    expect(errors).toHaveLength(1);
    loop.kick();
    await loop.settled();
    expect(rounds).toBe(2);
    expect(errors).toHaveLength(1);
  });
});

function fail(error: unknown): void {
  throw error;
}

import { GroupCommit } from '../../../src/platform/database/group-commit';

describe('GroupCommit', () => {
  it('writes a lone item at once and the items that arrive during a write together, each with its own result', async () => {
    const statements: number[][] = [];
    let release: () => void = () => undefined;
    const commit = new GroupCommit<number, number>(async (items) => {
      statements.push(items);
      if (statements.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((item) => item * 10);
    });

    const first = commit.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toEqual([[1]]);
    const later = [commit.submit(2), commit.submit(3), commit.submit(4)];
    release();

    await expect(first).resolves.toBe(10);
    await expect(Promise.all(later)).resolves.toEqual([20, 30, 40]);
    expect(statements).toEqual([[1], [2, 3, 4]]);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const statements: string[][] = [];
    const commit = new GroupCommit<string, string>(async (items) => {
      statements.push(items);
      if (items.includes('bad')) throw new Error('constraint violated');
      return items.map((item) => item.toUpperCase());
    });

    const results = await Promise.allSettled([commit.submit('a'), commit.submit('bad'), commit.submit('c')]);

    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('constraint violated') },
      { status: 'fulfilled', value: 'C' },
    ]);
    expect(statements).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('takes at most maxBatch items per statement', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        sizes.push(items.length);
        return items;
      },
      { maxBatch: 2 },
    );

    await Promise.all([1, 2, 3, 4, 5].map((item) => commit.submit(item)));

    expect(sizes).toEqual([2, 2, 1]);
  });

  it('with concurrency 2, an item arriving during a write goes out at once in a second statement', async () => {
    const statements: number[][] = [];
    const releases: (() => void)[] = [];
    const commit = new GroupCommit<number, number>(
      async (items) => {
        statements.push(items);
        await new Promise<void>((resolve) => releases.push(resolve));
        return items;
      },
      { concurrency: 2 },
    );
    const first = commit.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = commit.submit(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toEqual([[1], [2]]);
    const third = commit.submit(3); // both slots busy: waits for the first to end
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toHaveLength(2);
    releases[1]!();
    await expect(second).resolves.toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toEqual([[1], [2], [3]]);
    releases[0]!();
    releases[2]!();
    await expect(Promise.all([first, third])).resolves.toEqual([1, 3]);
  });

  it('never writes two items of one key at once, and keeps their order', async () => {
    const statements: string[][] = [];
    const releases: (() => void)[] = [];
    const commit = new GroupCommit<string, string>(
      async (items) => {
        statements.push(items);
        await new Promise<void>((resolve) => releases.push(resolve));
        return items;
      },
      { concurrency: 2, key: (item) => item.split('-')[0]! },
    );
    const done = [commit.submit('a-1')];
    await new Promise((resolve) => setImmediate(resolve));
    done.push(commit.submit('a-2'), commit.submit('b-1'), commit.submit('a-3'));
    await new Promise((resolve) => setImmediate(resolve));
    // a-2 and a-3 wait for a-1; b-1 goes beside it.
    expect(statements).toEqual([['a-1'], ['b-1']]);
    releases[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(statements).toEqual([['a-1'], ['b-1'], ['a-2', 'a-3']]);
    releases[1]!();
    releases[2]!();
    await expect(Promise.all(done)).resolves.toEqual(['a-1', 'a-2', 'b-1', 'a-3']);
  });
});

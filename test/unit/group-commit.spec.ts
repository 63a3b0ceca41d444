import { GroupCommit } from '../../src/platform/database/group-commit';

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
    const commit = new GroupCommit<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, 2);

    await Promise.all([1, 2, 3, 4, 5].map((item) => commit.submit(item)));

    expect(sizes).toEqual([2, 2, 1]);
  });
});

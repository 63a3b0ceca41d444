/**
 * Group commit: callers submit one item each and await its own result, while the items that arrive
 * during a write are written together by the next one. One statement (one round trip, one WAL flush)
 * then serves many concurrent requests; a lone request is written at once (after the current I/O
 * phase, so requests parsed together share a statement), so nothing waits for a timer.
 *
 * With `concurrency` above 1, up to that many statements run at once, and items that arrive during a
 * write go out in the next free one instead of waiting for the write to end. Items with the same
 * `key` are never in two statements at once, and go out in the order they were submitted (a
 * statement that counts a user's rows then sees all of that user's earlier items committed).
 *
 * A failed batch is retried item by item: each caller gets its own result or its own error, and one
 * bad item never fails the others.
 */
export interface GroupCommitOptions<Item> {
  /** The most items one statement takes; more wait for the next (default 200). */
  maxBatch?: number;
  /** Statements in flight at once (default 1: one after the other). */
  concurrency?: number;
  /** Items with the same key are written one statement after the other (with concurrency > 1). */
  key?: (item: Item) => string;
}

interface Entry<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<Item, Result> {
  private pending: Entry<Item, Result>[] = [];
  private inFlight = 0;
  /** Keys of the items in statements now running. */
  private readonly busyKeys = new Map<string, number>();
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly concurrency: number;
  private readonly key: ((item: Item) => string) | undefined;

  /**
   * @param write writes the items in one statement and returns one result per item, in order.
   * @param options the batch size, the statements at once and the key.
   */
  constructor(
    private readonly write: (items: Item[]) => Promise<Result[]>,
    options: GroupCommitOptions<Item> = {},
  ) {
    this.maxBatch = options.maxBatch ?? 200;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.key = options.key;
  }

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inFlight >= this.concurrency || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /** The next statement's items: the oldest pending ones whose keys are not being written (nor held back). */
  private takeBatch(): Entry<Item, Result>[] {
    if (!this.key) return this.pending.splice(0, this.maxBatch);
    const batch: Entry<Item, Result>[] = [];
    const rest: Entry<Item, Result>[] = [];
    const heldBack = new Set<string>();
    for (const entry of this.pending) {
      const key = this.key(entry.item);
      if (batch.length >= this.maxBatch || this.busyKeys.has(key) || heldBack.has(key)) {
        // A later item of a held-back key must not overtake it.
        heldBack.add(key);
        rest.push(entry);
      } else batch.push(entry);
    }
    this.pending = rest;
    return batch;
  }

  private drain(): void {
    while (this.inFlight < this.concurrency && this.pending.length > 0) {
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      const keys = this.key ? batch.map((entry) => this.key!(entry.item)) : [];
      for (const key of keys) this.busyKeys.set(key, (this.busyKeys.get(key) ?? 0) + 1);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        for (const key of keys) {
          const left = (this.busyKeys.get(key) ?? 1) - 1;
          if (left > 0) this.busyKeys.set(key, left);
          else this.busyKeys.delete(key);
        }
        // What arrived during this write goes at once: it has waited one round trip already.
        this.drain();
      });
    }
  }

  private async run(batch: Entry<Item, Result>[]): Promise<void> {
    let results: Result[] | undefined;
    try {
      results = await this.write(batch.map((entry) => entry.item));
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
    }
    if (results) {
      batch.forEach((entry, index) => entry.resolve(results[index]!));
    } else if (batch.length > 1) {
      for (const entry of batch) {
        await this.write([entry.item]).then(
          ([result]) => entry.resolve(result!),
          (error: unknown) => entry.reject(error),
        );
      }
    }
  }
}

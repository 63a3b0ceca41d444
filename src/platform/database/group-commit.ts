/**
 * Group commit: callers submit one item each and await its own result, while the items that arrive
 * during a write are written together by the next one. One statement (one round trip, one WAL flush)
 * then serves many concurrent requests; a lone request is written at once (after the current I/O
 * phase, so requests parsed together share a statement), so nothing waits for a timer.
 *
 * A failed batch is retried item by item: each caller gets its own result or its own error, and one
 * bad item never fails the others.
 */
export class GroupCommit<Item, Result> {
  private pending: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private writing = false;
  private scheduled = false;

  /**
   * @param write writes the items in one statement and returns one result per item, in order.
   * @param maxBatch the most items one statement takes; more wait for the next.
   */
  constructor(
    private readonly write: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch = 200,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    const batch = this.pending.splice(0, this.maxBatch);
    try {
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
    } finally {
      this.writing = false;
      // What arrived during this write goes at once: it has waited one round trip already.
      if (this.pending.length > 0) void this.drain();
    }
  }
}

/**
 * The lease-and-kick loop every queue of work shares (durable jobs, notification deliveries,
 * provisioner jobs, chat turns, agent calls): one round runs at a time; a kick during a round
 * asks for one more round right after it, so a wake-up is never lost and rounds never overlap.
 * A round returns `true` when it may have left due work behind (it leased a full batch).
 */
export class LeaseLoop {
  private busy = false;
  private again = false;
  private stopped = false;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly round: () => Promise<boolean | void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs a round now, or right after the one in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.current = this.rounds()
      .catch((error: unknown) => {
        if (!this.stopped) this.onError(error);
      })
      .finally(() => {
        this.busy = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Whether a round is running (or queued right after the running one). */
  get running(): boolean {
    return this.busy;
  }

  /** Resolves when the round in progress (if any) has ended. */
  settled(): Promise<void> {
    return this.current.catch(() => undefined);
  }

  /** No more rounds; resolves when the round in progress has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      if ((await this.round()) === true) this.again = true;
    } while (this.again && !this.stopped);
  }
}

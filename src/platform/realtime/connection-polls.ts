import type { RealtimeConnection } from './realtime-connection';

/** What a poll round answers: `stop` ends the polling (the round closed the connection or has nothing left to watch). */
export type PollRound = () => Promise<'stop' | void>;

/**
 * Per-connection polling for watches that re-read their subject instead of every writer announcing it
 * (the chats watch, the chat stream, the workspace watch): a round runs at once, then `intervalMs` after
 * the previous one ended, until the connection closes, the round answers `stop`, or `stopAll()` (module
 * shutdown). A round that throws is reported to `onError` and tried again at the next interval.
 */
export class ConnectionPolls {
  private readonly stops = new Set<() => void>();

  start(
    connection: RealtimeConnection,
    intervalMs: number,
    round: PollRound,
    onError: (error: unknown) => void,
  ): void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      if (timer) clearTimeout(timer);
      this.stops.delete(stop);
    };
    this.stops.add(stop);
    connection.onClose(stop);
    const run = async (): Promise<void> => {
      if (stopped) return;
      try {
        if ((await round()) === 'stop') stop();
      } catch (error) {
        onError(error);
      }
      if (stopped || connection.closed) return;
      timer = setTimeout(() => void run(), intervalMs);
      timer.unref();
    };
    void run();
  }

  /** Ends every polling (module shutdown). */
  stopAll(): void {
    for (const stop of [...this.stops]) stop();
  }
}

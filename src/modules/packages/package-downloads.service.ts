import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { PackagesRepository } from './packages.repository';

/** How long downloads are gathered before one statement writes them. */
const FLUSH_MS = 200;

/**
 * Download counters of package versions, written in batches: every download of the next FLUSH_MS
 * joins one `UPDATE … FROM unnest(…)` (an activity write: the registry's cached documents stay).
 * One statement per download held a pool connection and a WAL flush per tarball, and `npm install`
 * fetches hundreds at once. The cost is that a crash loses at most FLUSH_MS of counts; shutdown
 * writes what is pending.
 */
@Injectable()
export class PackageDownloadsService implements OnApplicationShutdown {
  private readonly logger = new Logger(PackageDownloadsService.name);
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly rows: PackagesRepository) {}

  record(versionId: string): void {
    this.pending.set(versionId, (this.pending.get(versionId) ?? 0) + 1);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Writes the gathered counts now (tests and shutdown). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    if (batch.size === 0) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.rows.addDownloads([...batch.keys()], [...batch.values()]).then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn({ err: error }, `${batch.size} download counts were not written`),
      ),
    );
    return this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}

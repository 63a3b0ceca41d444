import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import { ChatFilesService } from './chat-files.service';
import { CHATS_CONFIG, type ChatsConfig } from './chats.config';
import { ChatsRepository } from './repositories/chats.repository';

export const RETENTION_JOB = 'chats.retention';

/**
 * `CHAT_RETENTION_DAYS` (issue 19.6; 0 = keep forever): archived chats older than the period are
 * purged with their messages and files (rows in one transaction, then the blobs) by the durable job
 * `chats.retention`, queued hourly (coalesced across instances).
 */
@Injectable()
export class ChatRetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ChatRetentionService.name);
  private readonly days: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobQueue,
    private readonly files: ChatFilesService,
    private readonly chatRows: ChatsRepository,
    @Inject(CHATS_CONFIG) config: ChatsConfig,
  ) {
    this.days = config.retentionDays;
    this.jobs.register(RETENTION_JOB, async () => void (await this.purge()), {
      maxAttempts: 3,
      backoffMs: 60_000,
    });
  }

  onApplicationBootstrap(): void {
    if (this.days === 0) return;
    // Hourly, not at start: a freshly started instance leaves the job queue as it found it.
    this.timer = setInterval(() => void this.schedule(), 3_600_000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async schedule(): Promise<void> {
    await this.transactions
      .run((tx) => this.jobs.enqueue(tx.manager, RETENTION_JOB, {}, { dedupeKey: 'retention' }))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'chat retention not scheduled'));
  }

  /** Purges archived chats archived before `now - days` (and their descendants); returns the counts. */
  async purge(now = new Date()): Promise<{ chats: number; files: number }> {
    if (this.days === 0) return { chats: 0, files: 0 };
    const cutoff = new Date(now.getTime() - this.days * 86_400_000);
    const { chats, fileIds } = await this.transactions.run(async (tx) => {
      const ids = await this.chatRows.archivedFamiliesBefore(cutoff, tx.manager);
      if (ids.length === 0) return { chats: 0, fileIds: [] as string[] };
      return { chats: ids.length, fileIds: await this.chatRows.purge(ids, tx.manager) };
    });
    await this.files.deleteBlobs(fileIds);
    if (chats) this.logger.log({ chats, files: fileIds.length }, 'archived chats purged');
    return { chats, files: fileIds.length };
  }
}

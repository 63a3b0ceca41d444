import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import { PREBUILDS_USER_ID, REINIT_TOPIC_PREFIX } from './events';
import {
  planPrebuilds,
  type ReinitEvent,
  type ReinitOpening,
  reinitOpening,
  type WantedPrebuilds,
} from './build-rules';
import { PrebuildsRepository } from './repositories/prebuilds.repository';
import { RECONCILE_JOB, templateFromRow, versionFromRow, WorkspacesService } from './workspaces.service';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

export type { ReinitEvent, ReinitOpening };

/** Reads a ClusterBus reinit payload: JSON, or (older publishers) the bare reason. */
export function parseReinitPayload(topic: string, payload: unknown): ReinitEvent {
  const workspaceId = topic.slice(REINIT_TOPIC_PREFIX.length);
  if (typeof payload === 'string') {
    try {
      const parsed = JSON.parse(payload) as Partial<ReinitEvent> & { owner_id?: string };
      if (parsed && typeof parsed === 'object')
        return {
          workspace_id: parsed.workspace_id || workspaceId,
          user_id: parsed.user_id ?? parsed.owner_id ?? '',
          reason: parsed.reason ?? 'prebuild_claimed',
        };
    } catch {
      // not JSON: an older publisher's raw reason
    }
    return { workspace_id: workspaceId, user_id: '', reason: payload };
  }
  const object = (payload ?? {}) as Partial<ReinitEvent>;
  return {
    workspace_id: object.workspace_id || workspaceId,
    user_id: object.user_id ?? '',
    reason: object.reason ?? 'prebuild_claimed',
  };
}

/**
 * Prebuilt workspaces: the reconciler (a durable job) keeps each preset of each template's active
 * version at its desired count of ready workspaces owned by the prebuilds system user; the reinit
 * stream tells a claimed workspace's agent about its new owner.
 */
@Injectable()
export class PrebuildsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(PrebuildsService.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly prebuilds: PrebuildsRepository,
    private readonly transactions: TransactionRunner,
    private readonly queue: JobQueue,
    private readonly workspaces: WorkspacesService,
    private readonly cluster: ClusterBus,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {
    this.queue.register(RECONCILE_JOB, async () => void (await this.reconcile()), {
      maxAttempts: 3,
      backoffMs: 1_000,
      leaseMs: 120_000,
    });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.scheduleIfNeeded(), this.config.reconcileIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The periodic pass: only when some preset wants prebuilds or prebuilt workspaces exist (an idle queue stays empty). */
  private async scheduleIfNeeded(): Promise<void> {
    if (await this.prebuilds.reconcileNeeded()) await this.schedule();
  }

  /** Queues a reconciliation (coalesced: one open at a time). */
  async schedule(): Promise<void> {
    await this.transactions
      .run((tx) => this.queue.enqueue(tx.manager, RECONCILE_JOB, {}, { dedupeKey: 'reconcile' }))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'prebuild reconciliation not scheduled'));
  }

  /** One pass over every preset with prebuilds; serialized across instances by an advisory lock. */
  async reconcile(): Promise<{ created: number; deleted: number }> {
    return this.transactions.run(async (tx) => {
      await this.prebuilds.lockReconcile(tx.manager);
      const templates = await this.prebuilds.liveTemplates(tx.manager);
      let created = 0;
      let deleted = 0;
      const wanted: WantedPrebuilds[] = [];
      for (const row of templates) {
        const template = templateFromRow(row);
        const presets = await this.prebuilds.presetsWantingPrebuilds(tx.manager, template.activeVersionId);
        for (const preset of presets)
          wanted.push({
            preset: preset.id,
            templateId: template.id,
            versionId: template.activeVersionId,
            instances: preset.desired_instances,
          });
      }
      const prebuilt = await this.prebuilds.prebuiltWorkspaces(tx.manager);
      const plan = planPrebuilds(wanted, prebuilt);
      for (const entry of plan.create) {
        const [templateRow] = templates.filter((row) => row.id === entry.templateId);
        const versionRow = await this.prebuilds.templateVersionRow(tx.manager, entry.versionId);
        for (let i = 0; i < entry.count; i++) {
          const template = templateFromRow(templateRow!);
          const name = `prebuild-${randomBytes(4).toString('hex')}`;
          const id = await this.workspaces.insertWorkspace(tx.manager, PREBUILDS_USER_ID, template, name);
          await this.workspaces.insertBuild(tx, {
            workspaceId: id,
            organizationId: template.organizationId,
            version: versionFromRow(versionRow!),
            presetId: entry.preset,
            transition: 'start',
            reason: 'initiator',
            initiatorId: PREBUILDS_USER_ID,
          });
          created++;
        }
      }
      for (const id of plan.retire) {
        const workspace = await this.prebuilds.workspace(tx.manager, id);
        if (!workspace) continue;
        await this.workspaces
          .buildInTransaction(tx, PREBUILDS_USER_ID, workspace, { transition: 'delete' })
          .then(() => deleted++)
          .catch((error: unknown) => {
            if (!(error instanceof ConflictError)) throw error;
          });
      }
      if (created || deleted) this.logger.log({ created, deleted }, 'prebuilds reconciled');
      return { created, deleted };
    });
  }

  /**
   * The reinit stream's opening, read after the caller subscribed (spec 2, States and transitions):
   * see reinitOpening.
   */
  async opening(workspaceId: string): Promise<ReinitOpening> {
    return reinitOpening(workspaceId, await this.prebuilds.reinitState(workspaceId));
  }

  /** Subscribes to the workspace's reinit events (every instance's claims arrive through the ClusterBus). */
  subscribe(workspaceId: string, handler: (event: ReinitEvent) => void): () => void {
    const topic = REINIT_TOPIC_PREFIX + workspaceId;
    return this.cluster.subscribe(topic, (payload) => handler(parseReinitPayload(topic, payload)));
  }
}

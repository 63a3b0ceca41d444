import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import { PREBUILDS_USER_ID, REINIT_TOPIC_PREFIX } from './events';
import { RECONCILE_JOB, templateFromRow, versionFromRow, WorkspacesService } from './workspaces.service';
import { loadWorkspaces } from './workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

/** The reinitialization event, as the reinit stream sends it. */
export interface ReinitEvent {
  workspace_id: string;
  user_id: string;
  reason: string;
}

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

/** What the reinit stream does when it opens (spec 2, the four rows). */
export type ReinitOpening = { kind: 'wait' } | { kind: 'send-and-end'; event: ReinitEvent };

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
    private readonly dataSource: DataSource,
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
    const [row] = (await this.dataSource
      .query(
        `SELECT EXISTS (SELECT 1 FROM template_version_presets p JOIN templates t ON t.active_version_id = p.template_version_id
                         WHERE p.desired_instances > 0 AND t.deleted = false)
             OR EXISTS (SELECT 1 FROM workspaces WHERE owner_id = $1 AND deleted = false) AS needed`,
        [PREBUILDS_USER_ID],
      )
      .catch(() => [{ needed: false }])) as { needed: boolean }[];
    if (row?.needed) await this.schedule();
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
      await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtext('devplane.prebuilds.reconcile'))`);
      const templates = (await tx.manager.query(`SELECT * FROM templates WHERE deleted = false`)) as Record<
        string,
        unknown
      >[];
      const desired = new Map<string, number>();
      let created = 0;
      let deleted = 0;
      const wanted: { preset: string; templateId: string; versionId: string; instances: number }[] = [];
      for (const row of templates) {
        const template = templateFromRow(row);
        const presets = (await tx.manager.query(
          `SELECT id, desired_instances FROM template_version_presets WHERE template_version_id = $1 AND desired_instances > 0`,
          [template.activeVersionId],
        )) as { id: string; desired_instances: number }[];
        for (const preset of presets) {
          desired.set(preset.id, preset.desired_instances);
          wanted.push({
            preset: preset.id,
            templateId: template.id,
            versionId: template.activeVersionId,
            instances: preset.desired_instances,
          });
        }
      }
      const prebuilt = (await tx.manager.query(
        `SELECT w.id, w.template_id, lb.template_version_preset_id AS preset_id, lb.transition, j.status
           FROM workspaces w
           JOIN LATERAL (SELECT b.* FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number DESC LIMIT 1) lb ON true
           JOIN provisioner_jobs j ON j.id = lb.job_id
          WHERE w.owner_id = $1 AND w.deleted = false ORDER BY w.created_at`,
        [PREBUILDS_USER_ID],
      )) as {
        id: string;
        template_id: string;
        preset_id: string | null;
        transition: string;
        status: string;
      }[];
      const live = new Map<string, string[]>();
      const retire: string[] = [];
      for (const workspace of prebuilt) {
        const inProgress = workspace.status === 'pending' || workspace.status === 'running';
        if (workspace.transition === 'delete') {
          if (workspace.status === 'failed') retire.push(workspace.id); // try the deletion again
          continue;
        }
        const keep = workspace.preset_id !== null && desired.has(workspace.preset_id);
        if (keep && workspace.transition === 'start' && workspace.status !== 'failed') {
          const list = live.get(workspace.preset_id!) ?? [];
          list.push(workspace.id);
          live.set(workspace.preset_id!, list);
        } else if (!inProgress) retire.push(workspace.id);
      }
      for (const entry of wanted) {
        const current = live.get(entry.preset) ?? [];
        if (current.length > entry.instances) retire.push(...current.slice(entry.instances));
        const [templateRow] = templates.filter((row) => row.id === entry.templateId);
        const [versionRow] = (await tx.manager.query('SELECT * FROM template_versions WHERE id = $1', [
          entry.versionId,
        ])) as Record<string, unknown>[];
        for (let i = current.length; i < entry.instances; i++) {
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
      for (const id of retire) {
        const [workspace] = await loadWorkspaces(tx.manager, 'w.id = $1', [id]);
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
   * unclaimed → wait; a regular workspace → 409; claimed and the claim build done → one event;
   * claimed with the claim build still running → wait for the event at its completion.
   */
  async opening(workspaceId: string): Promise<ReinitOpening> {
    const [state] = (await this.dataSource.query(
      `SELECT w.owner_id,
              (SELECT b.initiator_id FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number LIMIT 1) AS first_initiator,
              (SELECT j.status FROM workspace_builds b JOIN provisioner_jobs j ON j.id = b.job_id
                WHERE b.workspace_id = w.id AND b.is_claim ORDER BY b.build_number DESC LIMIT 1) AS claim_status
         FROM workspaces w WHERE w.id = $1 AND w.deleted = false`,
      [workspaceId],
    )) as { owner_id: string; first_initiator: string | null; claim_status: string | null }[];
    if (!state) throw new NotFoundError('Workspace not found.');
    if (state.owner_id === PREBUILDS_USER_ID) return { kind: 'wait' };
    if (state.first_initiator !== PREBUILDS_USER_ID)
      throw new ConflictError('Workspace is not a prebuilt workspace waiting to be claimed.', {
        code: 'NOT_PREBUILT',
      });
    if (state.claim_status === 'succeeded')
      return {
        kind: 'send-and-end',
        event: { workspace_id: workspaceId, user_id: state.owner_id, reason: 'prebuild_claimed' },
      };
    if (state.claim_status === 'failed' || state.claim_status === 'canceled')
      throw new ConflictError('Claim build failed permanently.', { code: 'CLAIM_FAILED' });
    return { kind: 'wait' };
  }

  /** Subscribes to the workspace's reinit events (every instance's claims arrive through the ClusterBus). */
  subscribe(workspaceId: string, handler: (event: ReinitEvent) => void): () => void {
    const topic = REINIT_TOPIC_PREFIX + workspaceId;
    return this.cluster.subscribe(topic, (payload) => handler(parseReinitPayload(topic, payload)));
  }
}

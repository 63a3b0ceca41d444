import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { SecretBox } from '../../platform/crypto/secret-box';
import { resultRows } from '../../platform/database/result-rows';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { RealtimeHub } from '../../platform/realtime/realtime-hub.service';
import type { ProvisionerJob, ProvisionerJobType } from './entities/provisioner-job.entity';
import type { AcquiredJob, JobLog, TemplateDefinition } from '../../platform/ports/provisioner-protocol';
import {
  BUILD_UPDATES_SUBJECT,
  type BuildUpdateFrame,
  PROVISIONER_WAKE_TOPIC,
  REINIT_TOPIC_PREFIX,
  PREBUILDS_USER_ID,
} from './events';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

/** Who acquires: a key's daemon (one organization) or an embedded daemon (every organization). */
export interface DaemonIdentity {
  organizationId: string | null;
  /** The provisioner key the daemon authenticated with (null: an embedded daemon). */
  keyId?: string | null;
  workerId: string;
  workerName: string;
}

/**
 * Who reports on a job: the worker id fences runs; a key's daemon is also bound to its organization
 * (another organization's job is not found) and to its key (issue 31.5).
 */
export interface JobCaller {
  workerId: string;
  organizationId: string | null;
  keyId: string | null;
}

/** An embedded daemon (every organization, no key): the worker id alone fences its jobs. */
export function embeddedCaller(workerId: string): JobCaller {
  return { workerId, organizationId: null, keyId: null };
}

export type { AcquiredJob };
export type JobLogInput = JobLog;

const LEASE_LOST = 'The provisioner daemon stopped reporting and its lease expired.';
export const AGENT_TOKEN_CONTEXT = (agentId: string): string => `workspace-agent:${agentId}`;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The provisioner job queue: jobs are rows of `provisioner_jobs`, acquired with
 * `FOR UPDATE SKIP LOCKED` under a lease that the daemon renews by reporting; an expired lease sends
 * the job back to the queue (or fails it after PROVISIONER_MAX_ATTEMPTS runs). Completion applies the
 * job's effect (a build's resources, a deleted workspace, a claim's reinit event).
 */
@Injectable()
export class ProvisionerJobsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ProvisionerJobsService.name);
  private readonly waiters = new Set<() => void>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly cluster: ClusterBus,
    private readonly hub: RealtimeHub,
    private readonly secrets: SecretBox,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.cluster.subscribe(PROVISIONER_WAKE_TOPIC, () => this.wake());
    const period = Math.max(100, Math.min(5_000, Math.floor(this.config.leaseMs / 2)));
    this.sweepTimer = setInterval(
      () =>
        void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'lease sweep failed')),
      period,
    );
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.unsubscribe?.();
    this.wake();
  }

  private wake(): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const resolve of waiting) resolve();
  }

  /** Queues a job in the caller's transaction; daemons are woken after the commit. */
  async enqueue(
    manager: EntityManager,
    input: {
      organizationId: string;
      type: ProvisionerJobType;
      input: ProvisionerJob['input'];
      initiatorId: string;
      afterCommit: (callback: () => void | Promise<void>) => void;
    },
  ): Promise<ProvisionerJob> {
    const [row] = (await manager.query(
      `INSERT INTO provisioner_jobs (organization_id, type, input, initiator_id, tags)
       VALUES ($1, $2, $3, $4, '{"scope":"organization"}') RETURNING *`,
      [input.organizationId, input.type, JSON.stringify(input.input), input.initiatorId],
    )) as Record<string, unknown>[];
    input.afterCommit(() => this.cluster.publish(PROVISIONER_WAKE_TOPIC, {}).catch(() => undefined));
    return toJob(row!);
  }

  /** Takes the oldest pending job, waiting up to `waitMs` for one; null when none came. */
  async acquire(daemon: DaemonIdentity, waitMs: number, signal?: AbortSignal): Promise<AcquiredJob | null> {
    const deadline = Date.now() + Math.min(waitMs, this.config.maxAcquireWaitMs);
    for (;;) {
      if (this.closed) return null;
      const job = await this.tryAcquire(daemon);
      if (job) return job;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || signal?.aborted || this.closed) return null;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(remaining, 2_000));
        timer.unref();
        this.waiters.add(done);
        signal?.addEventListener('abort', done);
      });
    }
  }

  private async tryAcquire(daemon: DaemonIdentity): Promise<AcquiredJob | null> {
    const acquired = await this.transactions.run(async (tx) => {
      const rows = resultRows<Record<string, unknown>>(
        await tx.manager.query(
          `UPDATE provisioner_jobs SET status = 'running', worker_id = $1, worker_name = $2, worker_key_id = $5,
           leased_until = now() + ($3::int * interval '1 millisecond'), attempts = attempts + 1,
           started_at = COALESCE(started_at, now()), updated_at = now()
         WHERE id = (SELECT id FROM provisioner_jobs
                     WHERE status = 'pending' AND ($4::uuid IS NULL OR organization_id = $4::uuid)
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
          [
            daemon.workerId,
            daemon.workerName,
            this.config.leaseMs,
            daemon.organizationId,
            daemon.keyId ?? null,
          ],
        ),
      );
      const row = rows[0];
      if (!row) return null;
      const job = toJob(row);
      const payload = await this.payload(tx.manager, job);
      await tx.manager.query(
        `INSERT INTO provisioner_job_logs (job_id, log_level, stage, output) VALUES ($1, 'info', 'Setting up', $2)`,
        [job.id, `Acquired by ${daemon.workerName} (run ${job.attempts})`],
      );
      return { job, payload };
    });
    if (!acquired) return null;
    void this.announce(acquired.job.id);
    return acquired.payload;
  }

  /** The daemon's view of a job; creates the build's resource and agent on first acquisition. */
  private async payload(manager: EntityManager, job: ProvisionerJob): Promise<AcquiredJob> {
    if (job.type === 'template_version_import') {
      const [version] = (await manager.query(
        'SELECT id, name, definition FROM template_versions WHERE id = $1',
        [job.input.template_version_id],
      )) as { id: string; name: string; definition: TemplateDefinition }[];
      if (!version) throw new NotFoundError('Template version not found.');
      return { job_id: job.id, type: job.type, lease_ms: this.config.leaseMs, template_version: version };
    }
    const [build] = (await manager.query(
      `SELECT b.id, b.build_number, b.transition, b.is_claim, b.workspace_id, w.name AS workspace_name,
              w.owner_id, v.id AS version_id, v.name AS version_name, v.definition
         FROM workspace_builds b JOIN workspaces w ON w.id = b.workspace_id
         JOIN template_versions v ON v.id = b.template_version_id WHERE b.id = $1`,
      [job.input.workspace_build_id],
    )) as {
      id: string;
      build_number: number;
      transition: 'start' | 'stop' | 'delete';
      is_claim: boolean;
      workspace_id: string;
      workspace_name: string;
      owner_id: string;
      version_id: string;
      version_name: string;
      definition: TemplateDefinition;
    }[];
    if (!build) throw new NotFoundError('Workspace build not found.');
    const ownerName = await this.ownerName(manager, build.owner_id);
    let agent: { id: string; token: string; name: string } | null = null;
    if (build.transition === 'start') agent = await this.agentFor(manager, job, build);
    const [owner] = (await manager.query(
      `SELECT (is_admin OR 'owner' = ANY(site_roles)) AS site_owner FROM users WHERE uuid = $1`,
      [build.owner_id],
    )) as { site_owner: boolean }[];
    return {
      job_id: job.id,
      type: job.type,
      lease_ms: this.config.leaseMs,
      template_version: { id: build.version_id, name: build.version_name, definition: build.definition },
      workspace_build: {
        id: build.id,
        build_number: build.build_number,
        transition: build.transition,
        workspace_id: build.workspace_id,
        workspace_name: build.workspace_name,
        owner_id: build.owner_id,
        owner_name: ownerName,
        claim: build.is_claim,
        agent,
        os_uid: await this.osUid(manager, build.workspace_id),
        owner_site_owner: owner?.site_owner === true,
      },
    };
  }

  /**
   * The workspace's OS uid (issue 30): allocated from WORKSPACE_UID_RANGE on its first build (the
   * next after the highest taken, else the lowest free one), then kept so restarts keep its files' owner.
   */
  private async osUid(manager: EntityManager, workspaceId: string): Promise<number> {
    const existing = (await manager.query('SELECT uid FROM workspace_os_identities WHERE workspace_id = $1', [
      workspaceId,
    ])) as { uid: number }[];
    if (existing[0]) return existing[0].uid;
    const { first, last } = this.config.uidRange;
    await manager.query('LOCK TABLE workspace_os_identities IN SHARE ROW EXCLUSIVE MODE');
    const [next] = (await manager.query(
      `SELECT COALESCE(MAX(uid) + 1, $1::int) AS uid FROM workspace_os_identities WHERE uid BETWEEN $1 AND $2`,
      [first, last],
    )) as { uid: number }[];
    let uid = next!.uid;
    if (uid > last) {
      const [gap] = (await manager.query(
        `SELECT s AS uid FROM generate_series($1::int, $2::int) s
          WHERE NOT EXISTS (SELECT 1 FROM workspace_os_identities i WHERE i.uid = s) LIMIT 1`,
        [first, last],
      )) as { uid: number }[];
      if (!gap) throw new ConflictError('WORKSPACE_UID_RANGE has no free uid left for a new workspace.');
      uid = gap.uid;
    }
    await manager.query('INSERT INTO workspace_os_identities (workspace_id, uid) VALUES ($1, $2)', [
      workspaceId,
      uid,
    ]);
    return uid;
  }

  private async ownerName(manager: EntityManager, ownerId: string): Promise<string> {
    if (ownerId === PREBUILDS_USER_ID) return 'prebuilds';
    const [row] = (await manager.query('SELECT name FROM users WHERE uuid = $1', [ownerId])) as {
      name: string;
    }[];
    return row?.name ?? '';
  }

  /**
   * The start build's resource and agent: made on the first acquisition (a retried run gets the same
   * agent and token); a claim build moves the running agent of the previous build to its resource.
   */
  private async agentFor(
    manager: EntityManager,
    job: ProvisionerJob,
    build: { workspace_id: string; is_claim: boolean; definition: TemplateDefinition },
  ): Promise<{ id: string; token: string; name: string }> {
    const existing = (await manager.query(
      `SELECT a.id, a.name, a.sealed_token FROM workspace_agents a
         JOIN workspace_resources r ON r.id = a.resource_id WHERE r.job_id = $1`,
      [job.id],
    )) as { id: string; name: string; sealed_token: string }[];
    if (existing[0]) {
      const found = existing[0];
      return {
        id: found.id,
        name: found.name,
        token: this.secrets.openText(found.sealed_token, AGENT_TOKEN_CONTEXT(found.id)),
      };
    }
    const [resource] = (await manager.query(
      `INSERT INTO workspace_resources (job_id, transition, type, name) VALUES ($1, 'start', 'devplane_workspace', 'workspace') RETURNING id`,
      [job.id],
    )) as { id: string }[];
    if (build.is_claim) {
      const [previous] = (await manager.query(
        `SELECT id, name, sealed_token FROM workspace_agents WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [build.workspace_id],
      )) as { id: string; name: string; sealed_token: string }[];
      if (previous) {
        await manager.query(
          'UPDATE workspace_agents SET resource_id = $2, updated_at = now() WHERE id = $1',
          [previous.id, resource!.id],
        );
        return {
          id: previous.id,
          name: previous.name,
          token: this.secrets.openText(previous.sealed_token, AGENT_TOKEN_CONTEXT(previous.id)),
        };
      }
    }
    const id = randomUUID();
    const token = randomUUID();
    const definition = build.definition;
    const apps = (definition.apps ?? []).map((app) => ({
      id: randomUUID(),
      slug: app.slug,
      display_name: app.display_name ?? app.slug,
      command: app.command,
      url: app.url,
      icon: app.icon,
    }));
    await manager.query(
      `INSERT INTO workspace_agents (id, resource_id, workspace_id, name, token_hash, sealed_token,
         environment_variables, apps, startup_script, vnc_command)
       VALUES ($1, $2, $3, 'main', $4, $5, $6, $7, $8, $9)`,
      [
        id,
        resource!.id,
        build.workspace_id,
        hashToken(token),
        this.secrets.seal(token, AGENT_TOKEN_CONTEXT(id)),
        JSON.stringify(definition.env ?? {}),
        JSON.stringify(apps),
        definition.startup_script ?? '',
        definition.vnc_command ?? '',
      ],
    );
    return { id, token, name: 'main' };
  }

  /** Appends logs and renews the lease; 409 when the job is no longer this daemon's. */
  async report(caller: JobCaller, jobId: string, logs: JobLogInput[]): Promise<void> {
    await this.transactions.run(async (tx) => {
      const renewed = resultRows(
        await tx.manager.query(
          `UPDATE provisioner_jobs SET leased_until = now() + ($3::int * interval '1 millisecond'), updated_at = now()
          WHERE id = $1 AND worker_id = $2 AND status = 'running' AND ${callerBound('$4', '$5')} RETURNING id`,
          [jobId, caller.workerId, this.config.leaseMs, caller.organizationId, caller.keyId],
        ),
      );
      if (renewed.length === 0) throw await this.notYours(tx.manager, caller, jobId);
      for (const log of logs)
        await tx.manager.query(
          'INSERT INTO provisioner_job_logs (job_id, log_level, stage, output) VALUES ($1, $2, $3, $4)',
          [jobId, log.level ?? 'info', (log.stage ?? '').slice(0, 128), log.output],
        );
    });
  }

  /** Records success and applies the job's effect. */
  async complete(caller: JobCaller, jobId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const rows = resultRows<Record<string, unknown>>(
        await tx.manager.query(
          `UPDATE provisioner_jobs SET status = 'succeeded', completed_at = now(), leased_until = NULL, updated_at = now()
          WHERE id = $1 AND worker_id = $2 AND status = 'running' AND ${callerBound('$3', '$4')} RETURNING *`,
          [jobId, caller.workerId, caller.organizationId, caller.keyId],
        ),
      );
      if (!rows[0]) throw await this.notYours(tx.manager, caller, jobId);
      const job = toJob(rows[0]);
      if (job.type !== 'workspace_build') return;
      const [build] = (await tx.manager.query(
        `SELECT b.transition, b.is_claim, b.workspace_id, w.owner_id FROM workspace_builds b
           JOIN workspaces w ON w.id = b.workspace_id WHERE b.id = $1`,
        [job.input.workspace_build_id],
      )) as { transition: string; is_claim: boolean; workspace_id: string; owner_id: string }[];
      if (!build) return;
      if (build.transition === 'delete')
        await tx.manager.query('UPDATE workspaces SET deleted = true, updated_at = now() WHERE id = $1', [
          build.workspace_id,
        ]);
      if (build.is_claim)
        tx.afterCommit(() =>
          this.cluster.publish(
            REINIT_TOPIC_PREFIX + build.workspace_id,
            JSON.stringify({
              workspace_id: build.workspace_id,
              user_id: build.owner_id,
              reason: 'prebuild_claimed',
            }),
          ),
        );
    });
    await this.announce(jobId);
  }

  async fail(caller: JobCaller, jobId: string, error: string, errorCode?: string): Promise<void> {
    const rows = resultRows(
      await this.dataSource.query(
        `UPDATE provisioner_jobs SET status = 'failed', completed_at = now(), leased_until = NULL, error = $3,
         error_code = $6, updated_at = now()
        WHERE id = $1 AND worker_id = $2 AND status = 'running' AND ${callerBound('$4', '$5')} RETURNING id`,
        [
          jobId,
          caller.workerId,
          error.slice(0, 4096),
          caller.organizationId,
          caller.keyId,
          errorCode ?? null,
        ],
      ),
    );
    if (rows.length === 0) throw await this.notYours(this.dataSource.manager, caller, jobId);
    await this.announce(jobId);
  }

  /** Jobs whose daemon stopped reporting: back to the queue, or failed after the last permitted run. */
  async sweep(): Promise<void> {
    const changed = resultRows<{ id: string; status: string }>(
      await this.dataSource.query(
        `UPDATE provisioner_jobs SET
         status = CASE WHEN attempts >= $1 THEN 'failed' ELSE 'pending' END,
         error = CASE WHEN attempts >= $1 THEN $2 ELSE error END,
         completed_at = CASE WHEN attempts >= $1 THEN now() ELSE NULL END,
         worker_id = CASE WHEN attempts >= $1 THEN worker_id ELSE NULL END,
         leased_until = NULL, updated_at = now()
       WHERE status = 'running' AND leased_until < now() RETURNING id, status`,
        [this.config.maxAttempts, LEASE_LOST],
      ),
    );
    if (changed.length === 0) return;
    this.logger.warn({ jobs: changed.length }, 'provisioner leases expired');
    if (changed.some((row) => row.status === 'pending'))
      await this.cluster.publish(PROVISIONER_WAKE_TOPIC, {}).catch(() => undefined);
    for (const row of changed) await this.announce(row.id);
  }

  /** Publishes a build job's state to the build watchers of every instance. */
  async announce(jobId: string): Promise<void> {
    try {
      const [row] = (await this.dataSource.query(
        `SELECT b.id AS build_id, b.workspace_id, w.name AS workspace_name, b.transition, b.build_number, j.status
           FROM workspace_builds b JOIN workspaces w ON w.id = b.workspace_id
           JOIN provisioner_jobs j ON j.id = b.job_id WHERE b.job_id = $1`,
        [jobId],
      )) as {
        build_id: string;
        workspace_id: string;
        workspace_name: string;
        transition: string;
        build_number: number;
        status: string;
      }[];
      if (!row) return;
      const frame: BuildUpdateFrame = {
        workspace_id: row.workspace_id,
        workspace_name: row.workspace_name,
        build_id: row.build_id,
        transition: row.transition,
        job_status: row.status,
        build_number: row.build_number,
      };
      await this.hub.publish(BUILD_UPDATES_SUBJECT, frame);
    } catch (error) {
      this.logger.warn({ err: error }, 'build update not announced');
    }
  }

  /** 404 when the job is not in the calling key's organization (another organization's job does not exist for it), else 409. */
  private async notYours(manager: EntityManager, caller: JobCaller, jobId: string): Promise<Error> {
    if (caller.organizationId !== null) {
      const [row] = (await manager.query('SELECT organization_id FROM provisioner_jobs WHERE id = $1', [
        jobId,
      ])) as { organization_id: string }[];
      if (!row || row.organization_id !== caller.organizationId)
        return new NotFoundError('Provisioner job not found.');
    }
    return new ConflictError('The job is not leased by this provisioner daemon.', { code: 'JOB_NOT_LEASED' });
  }
}

/**
 * A key's daemon only reaches jobs of its organization that it acquired with its key ($4 organization,
 * $5 key; both null for an embedded daemon, which the worker id alone fences).
 */
function callerBound(organization: string, key: string): string {
  return `(${organization}::uuid IS NULL OR organization_id = ${organization}::uuid) AND (${key}::uuid IS NULL OR worker_key_id = ${key}::uuid)`;
}

export function toJob(row: Record<string, unknown>): ProvisionerJob {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    type: row.type as ProvisionerJobType,
    status: row.status as ProvisionerJob['status'],
    input: row.input as ProvisionerJob['input'],
    initiatorId: row.initiator_id as string,
    tags: row.tags as Record<string, string>,
    workerId: row.worker_id as string | null,
    workerName: row.worker_name as string | null,
    workerKeyId: (row.worker_key_id as string | null | undefined) ?? null,
    leasedUntil: row.leased_until as Date | null,
    attempts: row.attempts as number,
    error: row.error as string | null,
    errorCode: row.error_code as string | null,
    startedAt: row.started_at as Date | null,
    completedAt: row.completed_at as Date | null,
    canceledAt: row.canceled_at as Date | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

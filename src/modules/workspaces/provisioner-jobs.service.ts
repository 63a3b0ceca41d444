import { IdentityDirectory } from '../identity/identity-directory.service';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { SecretBox } from '../../platform/crypto/secret-box';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import { LeaseLoop } from '../../platform/jobs/lease-loop';
import { RealtimeHub } from '../../platform/realtime/realtime-hub.service';
import { completedBuildEffects } from './build-rules';
import type { ProvisionerJob, ProvisionerJobType } from './entities/provisioner-job.entity';
import type { AcquiredJob, JobLog, TemplateDefinition } from '../../platform/ports/provisioner-protocol';
import {
  BUILD_UPDATES_SUBJECT,
  type BuildUpdateFrame,
  PROVISIONER_WAKE_TOPIC,
  REINIT_TOPIC_PREFIX,
  PREBUILDS_USER_ID,
} from './events';
import {
  type OrganizationJobRow,
  ProvisionerJobsRepository,
  toJob,
} from './repositories/provisioner-jobs.repository';
import { WorkspaceAgentsRepository } from './repositories/workspace-agents.repository';
import { PROVISIONER_STALE_MS, ProvisionerDaemonsService } from './provisioner-daemons.service';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

/** Who acquires: a key's daemon (one organization) or an embedded daemon (every organization). */
export interface DaemonIdentity {
  organizationId: string | null;
  /** The provisioner key the daemon authenticated with (null: an embedded daemon). */
  keyId?: string | null;
  workerId: string;
  workerName: string;
  /** The daemon's tags (its key's); the registry adds Coder's defaults. */
  tags?: Record<string, string>;
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
  /** The lease sweep: one at a time; a tick during a sweep runs one more after it. */
  private readonly sweeper = new LeaseLoop(
    () => this.sweep(),
    (error: unknown) => this.logger.warn({ err: error }, 'lease sweep failed'),
  );
  private sweepTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly cluster: ClusterBus,
    private readonly hub: RealtimeHub,
    private readonly secrets: SecretBox,
    private readonly jobs: ProvisionerJobsRepository,
    private readonly agents: WorkspaceAgentsRepository,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
    private readonly directory: IdentityDirectory,
    private readonly daemons: ProvisionerDaemonsService,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.cluster.subscribe(PROVISIONER_WAKE_TOPIC, () => this.wake());
    const period = Math.max(100, Math.min(5_000, Math.floor(this.config.leaseMs / 2)));
    this.sweepTimer = setInterval(() => this.sweeper.kick(), period);
    this.sweepTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.unsubscribe?.();
    this.wake();
    await this.sweeper.stop();
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
    const job = await this.jobs.insert(manager, input);
    await this.warnWithoutDaemons(manager, job);
    input.afterCommit(() => this.cluster.publish(PROVISIONER_WAKE_TOPIC, {}).catch(() => undefined));
    return job;
  }

  /**
   * Coder's check at job creation: when no daemon that matches the job's tags has been seen within the stale
   * interval, or all of those are busy, the server log says so and the job's log tells the user why it waits.
   */
  private async warnWithoutDaemons(manager: EntityManager, job: ProvisionerJob): Promise<void> {
    const matched = await this.daemons.matched(job.organizationId, job.tags, manager);
    if (matched.count > 0 && matched.available > 0) return;
    const tags = Object.entries(job.tags)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ');
    const message =
      matched.count === 0
        ? 'no matching provisioners found for job'
        : 'no active provisioners found for job (all matching provisioners are busy)';
    this.logger.warn(
      { job_id: job.id, organization_id: job.organizationId, tags: job.tags, matched },
      message,
    );
    const seen = matched.most_recently_seen ? ` (last seen ${matched.most_recently_seen})` : '';
    await this.jobs.appendLog(manager, job.id, {
      level: 'warn',
      stage: 'Waiting for a provisioner',
      output:
        matched.count === 0
          ? `No provisioner daemon matching the tags ${tags} has been seen in the last ${PROVISIONER_STALE_MS / 1000} seconds${seen}; the job stays pending until one connects.`
          : `Every provisioner daemon matching the tags ${tags} is busy; the job stays pending until one is free.`,
    });
  }

  /** Takes the oldest pending job, waiting up to `waitMs` for one; null when none came. */
  async acquire(daemon: DaemonIdentity, waitMs: number, signal?: AbortSignal): Promise<AcquiredJob | null> {
    await this.daemons.seen({ ...daemon, name: daemon.workerName });
    try {
      return await this.acquireWaiting(daemon, waitMs, signal);
    } finally {
      await this.daemons.seen({ ...daemon, name: daemon.workerName });
    }
  }

  private async acquireWaiting(
    daemon: DaemonIdentity,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<AcquiredJob | null> {
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
      const job = await this.jobs.leaseNext(tx.manager, daemon, this.config.leaseMs);
      if (!job) return null;
      const payload = await this.payload(tx.manager, job);
      await this.jobs.appendAcquiredLog(
        tx.manager,
        job.id,
        `Acquired by ${daemon.workerName} (run ${job.attempts})`,
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
      const version = await this.jobs.templateVersion(manager, job.input.template_version_id!);
      if (!version) throw new NotFoundError('Template version not found.');
      return { job_id: job.id, type: job.type, lease_ms: this.config.leaseMs, template_version: version };
    }
    const build = await this.jobs.buildOfJob(manager, job.input.workspace_build_id!);
    if (!build) throw new NotFoundError('Workspace build not found.');
    const owner = (await this.directory.usersByUuids([build.owner_id], manager)).get(build.owner_id);
    const ownerName = build.owner_id === PREBUILDS_USER_ID ? 'prebuilds' : (owner?.name ?? '');
    let agent: { id: string; token: string; name: string } | null = null;
    if (build.transition === 'start') agent = await this.agentFor(manager, job, build);
    // Site owner (admin or the `owner` role): without isolation the built-in provisioner builds only theirs.
    const siteOwner = owner !== undefined && (owner.isAdmin || owner.siteRoles.includes('owner'));
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
        owner_site_owner: siteOwner,
      },
    };
  }

  /**
   * The workspace's OS uid (issue 30): allocated from WORKSPACE_UID_RANGE on its first build (the
   * next after the highest taken, else the lowest free one), then kept so restarts keep its files' owner.
   */
  private async osUid(manager: EntityManager, workspaceId: string): Promise<number> {
    const existing = await this.jobs.osUidOf(manager, workspaceId);
    if (existing !== undefined) return existing;
    const { first, last } = this.config.uidRange;
    await this.jobs.lockOsIdentities(manager);
    let uid = await this.jobs.uidAfterHighest(manager, first, last);
    if (uid > last) {
      const gap = await this.jobs.lowestFreeUid(manager, first, last);
      if (gap === undefined)
        throw new ConflictError('WORKSPACE_UID_RANGE has no free uid left for a new workspace.');
      uid = gap;
    }
    await this.jobs.insertOsIdentity(manager, workspaceId, uid);
    return uid;
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
    const found = await this.agents.agentOfJob(manager, job.id);
    if (found)
      return {
        id: found.id,
        name: found.name,
        token: this.secrets.openText(found.sealed_token, AGENT_TOKEN_CONTEXT(found.id)),
      };
    const resourceId = await this.agents.insertResource(manager, job.id);
    if (build.is_claim) {
      const previous = await this.agents.latestAgentOfWorkspace(manager, build.workspace_id);
      if (previous) {
        await this.agents.moveToResource(manager, previous.id, resourceId);
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
      subdomain: app.subdomain ?? false,
      share: app.share ?? 'owner',
      max_share: definition.max_share_level ?? 'owner',
      ...(app.healthcheck ? { healthcheck: app.healthcheck } : {}),
    }));
    await this.agents.insert(manager, {
      id,
      resourceId,
      workspaceId: build.workspace_id,
      tokenHash: hashToken(token),
      sealedToken: this.secrets.seal(token, AGENT_TOKEN_CONTEXT(id)),
      environmentVariables: definition.env ?? {},
      apps,
      startupScript: definition.startup_script ?? '',
      vncCommand: definition.vnc_command ?? '',
      metadata: definition.metadata ?? [],
    });
    return { id, token, name: 'main' };
  }

  /** Appends logs and renews the lease; 409 when the job is no longer this daemon's. */
  async report(caller: JobCaller, jobId: string, logs: JobLogInput[]): Promise<void> {
    await this.daemons.touch(caller.workerId);
    await this.transactions.run(async (tx) => {
      const renewed = await this.jobs.renewLease(tx.manager, caller, jobId, this.config.leaseMs);
      if (!renewed) throw await this.notYours(caller, jobId, tx.manager);
      for (const log of logs)
        await this.jobs.appendLog(tx.manager, jobId, {
          level: log.level ?? 'info',
          stage: (log.stage ?? '').slice(0, 128),
          output: log.output,
        });
    });
  }

  /** Records success and applies the job's effect. */
  async complete(caller: JobCaller, jobId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const job = await this.jobs.markSucceeded(tx.manager, caller, jobId);
      if (!job) throw await this.notYours(caller, jobId, tx.manager);
      if (job.type !== 'workspace_build') return;
      const build = await this.jobs.completedBuild(tx.manager, job.input.workspace_build_id!);
      if (!build) return;
      const effects = completedBuildEffects(build);
      if (effects.deleteWorkspace) await this.jobs.markWorkspaceDeleted(tx.manager, build.workspace_id);
      if (effects.reinit) {
        const event = effects.reinit;
        tx.afterCommit(() =>
          this.cluster.publish(REINIT_TOPIC_PREFIX + event.workspace_id, JSON.stringify(event)),
        );
      }
    });
    await this.announce(jobId);
  }

  async fail(caller: JobCaller, jobId: string, error: string, errorCode?: string): Promise<void> {
    const failed = await this.jobs.markFailed(caller, jobId, error.slice(0, 4096), errorCode ?? null);
    if (!failed) throw await this.notYours(caller, jobId);
    await this.announce(jobId);
  }

  /** Jobs whose daemon stopped reporting: back to the queue, or failed after the last permitted run. */
  async sweep(): Promise<void> {
    const changed = await this.jobs.expireLeases(this.config.maxAttempts, LEASE_LOST);
    if (changed.length === 0) return;
    this.logger.warn({ jobs: changed.length }, 'provisioner leases expired');
    if (changed.some((row) => row.status === 'pending'))
      await this.cluster.publish(PROVISIONER_WAKE_TOPIC, {}).catch(() => undefined);
    for (const row of changed) await this.announce(row.id);
  }

  /** Publishes a build job's state to the build watchers of every instance. */
  async announce(jobId: string): Promise<void> {
    try {
      const row = await this.jobs.buildUpdate(jobId);
      if (!row) return;
      const frame: BuildUpdateFrame = {
        workspace_id: row.workspace_id,
        workspace_name: row.workspace_name,
        build_id: row.build_id,
        transition: row.transition,
        job_status: row.status,
        build_number: row.build_number,
      };
      if (['succeeded', 'failed', 'canceled'].includes(row.status))
        this.metrics.workspaceBuild(row.transition, row.status);
      await this.hub.publish(BUILD_UPDATES_SUBJECT, frame);
    } catch (error) {
      this.logger.warn({ err: error }, 'build update not announced');
    }
  }

  /** An organization's jobs, newest first, with their build, workspace, version and template (the job list). */
  listForOrganization(
    organizationId: string,
    filters: { statuses: string[]; ids: string[] },
    limit: number,
  ): Promise<OrganizationJobRow[]> {
    return this.jobs.listForOrganization(organizationId, filters, limit);
  }

  /** 404 when the job is not in the calling key's organization (another organization's job does not exist for it), else 409. */
  private async notYours(caller: JobCaller, jobId: string, manager?: EntityManager): Promise<Error> {
    if (caller.organizationId !== null) {
      const organizationId = await this.jobs.organizationOf(jobId, manager);
      if (organizationId === undefined || organizationId !== caller.organizationId)
        return new NotFoundError('Provisioner job not found.');
    }
    return new ConflictError('The job is not leased by this provisioner daemon.', { code: 'JOB_NOT_LEASED' });
  }
}

export { toJob };

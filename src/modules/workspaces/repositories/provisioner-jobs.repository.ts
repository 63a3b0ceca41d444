import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';
import type { TemplateDefinition } from '../../../platform/ports/provisioner-protocol';
import type { ProvisionerJob, ProvisionerJobType } from '../entities/provisioner-job.entity';
import type { JobRow } from '../workspace-views';
import { ProvisionerJobLog } from '../entities/provisioner-job-log.entity';
import { WorkspaceOsIdentity } from '../entities/workspace-os-identity.entity';

/** Who may touch a leased job: the worker id, and for a key's daemon its organization and key (null: an embedded daemon). */
export interface JobFence {
  workerId: string;
  organizationId: string | null;
  keyId: string | null;
}

/** The build a workspace_build job runs, with its workspace and template version. */
export interface JobBuildRow {
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
}

/** What a completed build job acts on. */
export interface CompletedBuildRow {
  transition: string;
  is_claim: boolean;
  workspace_id: string;
  owner_id: string;
}

/** A build job's state for the build watchers. */
export interface BuildUpdateRow {
  build_id: string;
  workspace_id: string;
  workspace_name: string;
  transition: string;
  build_number: number;
  status: string;
}

/** An organization's job with what the job list shows beside it (its build, workspace, version and template). */
export interface OrganizationJobRow {
  job: JobRow;
  version_name: string | null;
  template_id: string | null;
  template_name: string | null;
  template_display_name: string | null;
  template_icon: string | null;
  workspace_id: string | null;
  workspace_name: string | null;
  transition: string | null;
}

/**
 * The SQL of the provisioner job queue (`provisioner_jobs`, `provisioner_job_logs`) and of what a job
 * reads and changes (its build, the workspace's OS uid). Leases are raw SQL (`FOR UPDATE SKIP LOCKED`).
 * A method that runs inside the caller's transaction takes its EntityManager. The owner's account comes from
 * identity's directory.
 */
@Injectable()
export class ProvisionerJobsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    input: {
      organizationId: string;
      type: ProvisionerJobType;
      input: ProvisionerJob['input'];
      initiatorId: string;
    },
  ): Promise<ProvisionerJob> {
    const [row] = (await manager.query(
      `INSERT INTO provisioner_jobs (organization_id, type, input, initiator_id, tags)
       VALUES ($1, $2, $3, $4, '{"scope":"organization"}') RETURNING *`,
      [input.organizationId, input.type, JSON.stringify(input.input), input.initiatorId],
    )) as Record<string, unknown>[];
    return toJob(row!);
  }

  /** Leases the oldest pending job (of the organization, or of any for null) to the worker; null when none is free. */
  async leaseNext(
    manager: EntityManager,
    daemon: { organizationId: string | null; keyId?: string | null; workerId: string; workerName: string },
    leaseMs: number,
  ): Promise<ProvisionerJob | null> {
    const rows = resultRows<Record<string, unknown>>(
      await manager.query(
        `UPDATE provisioner_jobs SET status = 'running', worker_id = $1, worker_name = $2, worker_key_id = $5,
           leased_until = now() + ($3::int * interval '1 millisecond'), attempts = attempts + 1,
           started_at = COALESCE(started_at, now()), updated_at = now()
         WHERE id = (SELECT id FROM provisioner_jobs
                     WHERE status = 'pending' AND ($4::uuid IS NULL OR organization_id = $4::uuid)
                     ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [daemon.workerId, daemon.workerName, leaseMs, daemon.organizationId, daemon.keyId ?? null],
      ),
    );
    const row = rows[0];
    return row ? toJob(row) : null;
  }

  async appendLog(
    manager: EntityManager,
    jobId: string,
    log: { level: string; stage: string; output: string },
  ): Promise<void> {
    await manager
      .getRepository(ProvisionerJobLog)
      .insert({ jobId, logLevel: log.level, stage: log.stage, output: log.output });
  }

  /** The acquisition's log line ('info', 'Setting up'). */
  async appendAcquiredLog(manager: EntityManager, jobId: string, output: string): Promise<void> {
    await manager
      .getRepository(ProvisionerJobLog)
      .insert({ jobId, logLevel: 'info', stage: 'Setting up', output });
  }

  async templateVersion(
    manager: EntityManager,
    versionId: string,
  ): Promise<{ id: string; name: string; definition: TemplateDefinition } | undefined> {
    const [version] = (await manager.query(
      'SELECT id, name, definition FROM template_versions WHERE id = $1',
      [versionId],
    )) as { id: string; name: string; definition: TemplateDefinition }[];
    return version;
  }

  async buildOfJob(manager: EntityManager, buildId: string): Promise<JobBuildRow | undefined> {
    const [build] = (await manager.query(
      `SELECT b.id, b.build_number, b.transition, b.is_claim, b.workspace_id, w.name AS workspace_name,
              w.owner_id, v.id AS version_id, v.name AS version_name, v.definition
         FROM workspace_builds b JOIN workspaces w ON w.id = b.workspace_id
         JOIN template_versions v ON v.id = b.template_version_id WHERE b.id = $1`,
      [buildId],
    )) as JobBuildRow[];
    return build;
  }

  async osUidOf(manager: EntityManager, workspaceId: string): Promise<number | undefined> {
    const existing = await manager
      .getRepository(WorkspaceOsIdentity)
      .findOne({ select: { uid: true }, where: { workspaceId } });
    return existing?.uid;
  }

  /** Serializes uid allocation until the caller's transaction ends. */
  async lockOsIdentities(manager: EntityManager): Promise<void> {
    await manager.query('LOCK TABLE workspace_os_identities IN SHARE ROW EXCLUSIVE MODE');
  }

  /** The uid after the highest taken in [first, last] (`first` when none is taken; may exceed `last`). */
  async uidAfterHighest(manager: EntityManager, first: number, last: number): Promise<number> {
    const [next] = (await manager.query(
      `SELECT COALESCE(MAX(uid) + 1, $1::int) AS uid FROM workspace_os_identities WHERE uid BETWEEN $1 AND $2`,
      [first, last],
    )) as { uid: number }[];
    return next!.uid;
  }

  /** The lowest free uid in [first, last]; undefined when every one is taken. */
  async lowestFreeUid(manager: EntityManager, first: number, last: number): Promise<number | undefined> {
    const [gap] = (await manager.query(
      `SELECT s AS uid FROM generate_series($1::int, $2::int) s
          WHERE NOT EXISTS (SELECT 1 FROM workspace_os_identities i WHERE i.uid = s) LIMIT 1`,
      [first, last],
    )) as { uid: number }[];
    return gap?.uid;
  }

  async insertOsIdentity(manager: EntityManager, workspaceId: string, uid: number): Promise<void> {
    await manager.getRepository(WorkspaceOsIdentity).insert({ workspaceId, uid });
  }

  /** Renews the lease of a job the caller runs; false when it is not (any more) the caller's. */
  async renewLease(
    manager: EntityManager,
    fence: JobFence,
    jobId: string,
    leaseMs: number,
  ): Promise<boolean> {
    const renewed = resultRows(
      await manager.query(
        `UPDATE provisioner_jobs SET leased_until = now() + ($3::int * interval '1 millisecond'), updated_at = now()
          WHERE id = $1 AND worker_id = $2 AND status = 'running' AND ${fenced('$4', '$5')} RETURNING id`,
        [jobId, fence.workerId, leaseMs, fence.organizationId, fence.keyId],
      ),
    );
    return renewed.length > 0;
  }

  /** running → succeeded for the caller's job; null when it is not the caller's running job. */
  async markSucceeded(
    manager: EntityManager,
    fence: JobFence,
    jobId: string,
  ): Promise<ProvisionerJob | null> {
    const rows = resultRows<Record<string, unknown>>(
      await manager.query(
        `UPDATE provisioner_jobs SET status = 'succeeded', completed_at = now(), leased_until = NULL, updated_at = now()
          WHERE id = $1 AND worker_id = $2 AND status = 'running' AND ${fenced('$3', '$4')} RETURNING *`,
        [jobId, fence.workerId, fence.organizationId, fence.keyId],
      ),
    );
    return rows[0] ? toJob(rows[0]) : null;
  }

  /** running → failed for the caller's job; false when it is not the caller's running job. */
  async markFailed(
    fence: JobFence,
    jobId: string,
    error: string,
    errorCode: string | null,
  ): Promise<boolean> {
    const rows = resultRows(
      await this.dataSource.query(
        `UPDATE provisioner_jobs SET status = 'failed', completed_at = now(), leased_until = NULL, error = $3,
         error_code = $6, updated_at = now()
        WHERE id = $1 AND worker_id = $2 AND status = 'running' AND ${fenced('$4', '$5')} RETURNING id`,
        [jobId, fence.workerId, error, fence.organizationId, fence.keyId, errorCode],
      ),
    );
    return rows.length > 0;
  }

  /** Running jobs whose lease expired: back to pending, or failed with `error` once `maxAttempts` runs were made. */
  async expireLeases(maxAttempts: number, error: string): Promise<{ id: string; status: string }[]> {
    return resultRows<{ id: string; status: string }>(
      await this.dataSource.query(
        `UPDATE provisioner_jobs SET
         status = CASE WHEN attempts >= $1 THEN 'failed' ELSE 'pending' END,
         error = CASE WHEN attempts >= $1 THEN $2 ELSE error END,
         completed_at = CASE WHEN attempts >= $1 THEN now() ELSE NULL END,
         worker_id = CASE WHEN attempts >= $1 THEN worker_id ELSE NULL END,
         leased_until = NULL, updated_at = now()
       WHERE status = 'running' AND leased_until < now() RETURNING id, status`,
        [maxAttempts, error],
      ),
    );
  }

  async completedBuild(manager: EntityManager, buildId: string): Promise<CompletedBuildRow | undefined> {
    const [build] = (await manager.query(
      `SELECT b.transition, b.is_claim, b.workspace_id, w.owner_id FROM workspace_builds b
           JOIN workspaces w ON w.id = b.workspace_id WHERE b.id = $1`,
      [buildId],
    )) as CompletedBuildRow[];
    return build;
  }

  async markWorkspaceDeleted(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.query('UPDATE workspaces SET deleted = true, updated_at = now() WHERE id = $1', [
      workspaceId,
    ]);
  }

  async buildUpdate(jobId: string): Promise<BuildUpdateRow | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT b.id AS build_id, b.workspace_id, w.name AS workspace_name, b.transition, b.build_number, j.status
           FROM workspace_builds b JOIN workspaces w ON w.id = b.workspace_id
           JOIN provisioner_jobs j ON j.id = b.job_id WHERE b.job_id = $1`,
      [jobId],
    )) as BuildUpdateRow[];
    return row;
  }

  /** The job's organization; undefined when the job does not exist. */
  async organizationOf(
    jobId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string | undefined> {
    const [row] = (await manager.query('SELECT organization_id FROM provisioner_jobs WHERE id = $1', [
      jobId,
    ])) as { organization_id: string }[];
    return row?.organization_id;
  }

  /** An organization's jobs, newest first (`ids`, `statuses`: none means any). */
  async listForOrganization(
    organizationId: string,
    filters: { statuses: string[]; ids: string[] },
    limit: number,
  ): Promise<OrganizationJobRow[]> {
    return (await this.dataSource.query(
      `SELECT to_jsonb(j.*) AS job, v.name AS version_name, t.id AS template_id, t.name AS template_name,
              t.display_name AS template_display_name, t.icon AS template_icon, w.id AS workspace_id, w.name AS workspace_name,
              b.transition
         FROM provisioner_jobs j
         LEFT JOIN workspace_builds b ON b.job_id = j.id
         LEFT JOIN workspaces w ON w.id = b.workspace_id
         LEFT JOIN template_versions v ON v.id = COALESCE(b.template_version_id, (j.input->>'template_version_id')::uuid)
         LEFT JOIN templates t ON t.id = COALESCE(w.template_id, v.template_id)
        WHERE j.organization_id = $1 AND (cardinality($2::uuid[]) = 0 OR j.id = ANY($2::uuid[]))
          AND (cardinality($3::text[]) = 0 OR j.status = ANY($3::text[]))
        ORDER BY j.created_at DESC LIMIT $4`,
      [organizationId, filters.ids, filters.statuses, limit],
    )) as OrganizationJobRow[];
  }
}

/**
 * A key's daemon only reaches jobs of its organization that it acquired with its key (`organization`,
 * `key`: the parameters; both null for an embedded daemon, which the worker id alone fences).
 */
function fenced(organization: string, key: string): string {
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

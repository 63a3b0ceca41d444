import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AgentRow, BuildRow, JobRow, Queryable, ResourceRow, WorkspaceRow } from '../workspace-views';

const BUILD_SELECT = `
  SELECT b.*, v.name AS version_name, w.name AS workspace_name, w.owner_id, w.template_id,
         t.name AS template_name, t.display_name AS template_display_name, t.icon AS template_icon,
         to_jsonb(j.*) AS job
    FROM workspace_builds b
    JOIN workspaces w ON w.id = b.workspace_id
    JOIN templates t ON t.id = w.template_id
    JOIN template_versions v ON v.id = b.template_version_id
    JOIN provisioner_jobs j ON j.id = b.job_id`;

function reviveJob(job: Record<string, unknown>): JobRow {
  const dates = ['started_at', 'completed_at', 'canceled_at', 'created_at', 'updated_at'];
  for (const key of dates) if (typeof job[key] === 'string') job[key] = new Date(job[key]);
  return job as unknown as JobRow;
}

/** Builds by id, with their job, resources and agents. */
export async function loadBuilds(
  dataSource: Queryable,
  where: string,
  params: unknown[],
): Promise<BuildRow[]> {
  const builds = (await dataSource.query(`${BUILD_SELECT} WHERE ${where}`, params)) as (BuildRow & {
    job: Record<string, unknown>;
  })[];
  if (builds.length === 0) return [];
  for (const build of builds) (build as BuildRow).job = reviveJob(build.job);
  const jobIds = builds.map((build) => build.job_id);
  const resources = (await dataSource.query(
    'SELECT * FROM workspace_resources WHERE job_id = ANY($1::uuid[]) ORDER BY created_at',
    [jobIds],
  )) as ResourceRow[];
  const agents = resources.length
    ? ((await dataSource.query(
        'SELECT * FROM workspace_agents WHERE resource_id = ANY($1::uuid[]) ORDER BY created_at',
        [resources.map((resource) => resource.id)],
      )) as AgentRow[])
    : [];
  for (const resource of resources)
    resource.agents = agents.filter((agent) => agent.resource_id === resource.id);
  for (const build of builds)
    build.resources = resources.filter((resource) => resource.job_id === build.job_id);
  return builds;
}

const WORKSPACE_SELECT = `
  SELECT w.*, t.name AS template_name, t.display_name AS template_display_name, t.icon AS template_icon,
         t.active_version_id AS template_active_version_id
    FROM workspaces w JOIN templates t ON t.id = w.template_id`;

export async function loadWorkspaces(
  dataSource: Queryable,
  where: string,
  params: unknown[],
  tail = '',
): Promise<WorkspaceRow[]> {
  return (await dataSource.query(`${WORKSPACE_SELECT} WHERE ${where} ${tail}`, params)) as WorkspaceRow[];
}

/** The latest build of each workspace. */
export async function loadLatestBuilds(
  dataSource: Queryable,
  workspaceIds: string[],
): Promise<Map<string, BuildRow>> {
  if (workspaceIds.length === 0) return new Map();
  const builds = await loadBuilds(
    dataSource,
    `b.id IN (SELECT DISTINCT ON (workspace_id) id FROM workspace_builds WHERE workspace_id = ANY($1::uuid[])
             ORDER BY workspace_id, build_number DESC)`,
    [workspaceIds],
  );
  return new Map(builds.map((build) => [build.workspace_id, build]));
}

/** Filters of the workspace list (`GET /workspaces`); `owner` is a user uuid. */
export interface WorkspaceSearch {
  owner?: string;
  template?: string;
  name?: string;
  hasAiTask?: boolean;
}

/**
 * The rows the presenters need (workspaces with their template, builds with their job, resources and
 * agents), for any number of workspaces in a fixed number of queries. A method that may run inside a
 * transaction takes its EntityManager last. Account names come from identity's directory (WorkspaceAccounts).
 */
@Injectable()
export class WorkspaceViewsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A workspace that is not deleted. */
  async liveWorkspace(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WorkspaceRow | undefined> {
    const [workspace] = await loadWorkspaces(manager, 'w.id = $1 AND w.deleted = false', [id]);
    return workspace;
  }

  /** A workspace, deleted or not (a deleted workspace's builds stay readable). */
  async anyWorkspace(
    id: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<WorkspaceRow | undefined> {
    const [workspace] = await loadWorkspaces(manager, 'w.id = $1', [id]);
    return workspace;
  }

  async workspaceByOwnerAndName(ownerId: string, lowerName: string): Promise<WorkspaceRow | undefined> {
    const [workspace] = await loadWorkspaces(
      this.dataSource,
      'w.owner_id = $1 AND w.lower_name = $2 AND w.deleted = false',
      [ownerId, lowerName],
    );
    return workspace;
  }

  /** A task's workspace of an owner, by id or by (lower-cased) name. */
  async ownedWorkspaceByRef(ownerId: string, ref: string, byId: boolean): Promise<WorkspaceRow | undefined> {
    const [workspace] = await loadWorkspaces(
      this.dataSource,
      `w.owner_id = $1 AND w.deleted = false AND ${byId ? 'w.id = $2' : 'w.lower_name = $2'}`,
      [ownerId, ref],
    );
    return workspace;
  }

  /** Workspaces matching the filters, newest first (before RBAC filtering). */
  async search(filters: WorkspaceSearch): Promise<WorkspaceRow[]> {
    const where = ['w.deleted = false'];
    const params: unknown[] = [];
    if (filters.owner) {
      params.push(filters.owner);
      where.push(`w.owner_id = $${params.length}`);
    }
    if (filters.template) {
      params.push(filters.template.toLowerCase());
      where.push(`t.lower_name = $${params.length}`);
    }
    if (filters.name) {
      params.push(`%${filters.name.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(`w.lower_name LIKE $${params.length}`);
    }
    if (filters.hasAiTask !== undefined) {
      params.push(filters.hasAiTask);
      where.push(
        `(SELECT b.has_ai_task FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number DESC LIMIT 1) = $${params.length}`,
      );
    }
    return loadWorkspaces(this.dataSource, where.join(' AND '), params, 'ORDER BY w.created_at DESC, w.id');
  }

  /** The live workspaces of an owner (uuid), in the caller's transaction. */
  async ownedBy(ownerUuid: string, manager: EntityManager): Promise<WorkspaceRow[]> {
    return loadWorkspaces(manager, 'w.owner_id = $1 AND w.deleted = false', [ownerUuid]);
  }

  /** The latest build of each workspace. */
  async latestBuilds(workspaceIds: string[]): Promise<Map<string, BuildRow>> {
    return loadLatestBuilds(this.dataSource, workspaceIds);
  }

  /** A workspace's builds, newest first (`limit` 0: all). */
  async buildsOf(workspaceId: string, page: { limit: number; offset: number }): Promise<BuildRow[]> {
    return loadBuilds(
      this.dataSource,
      `b.workspace_id = $1 ORDER BY b.build_number DESC ${page.limit > 0 ? `LIMIT ${page.limit}` : ''} OFFSET ${page.offset}`,
      [workspaceId],
    );
  }

  async buildByNumber(workspaceId: string, buildNumber: number): Promise<BuildRow | undefined> {
    const [build] = await loadBuilds(this.dataSource, 'b.workspace_id = $1 AND b.build_number = $2', [
      workspaceId,
      buildNumber,
    ]);
    return build;
  }

  async build(id: string): Promise<BuildRow | undefined> {
    const [build] = await loadBuilds(this.dataSource, 'b.id = $1', [id]);
    return build;
  }

  /** The resources (with agents) a provisioner job produced. */
  async jobResources(jobId: string): Promise<ResourceRow[]> {
    const resources = (await this.dataSource.query(
      'SELECT * FROM workspace_resources WHERE job_id = $1 ORDER BY created_at',
      [jobId],
    )) as ResourceRow[];
    const agents = resources.length
      ? ((await this.dataSource.query(
          'SELECT * FROM workspace_agents WHERE resource_id = ANY($1::uuid[]) ORDER BY created_at',
          [resources.map((resource) => resource.id)],
        )) as AgentRow[])
      : [];
    for (const resource of resources)
      resource.agents = agents.filter((agent) => agent.resource_id === resource.id);
    return resources;
  }

  /** A provisioner job (a template version's import job). */
  async job(id: string): Promise<JobRow> {
    const [job] = await this.dataSource.query('SELECT * FROM provisioner_jobs WHERE id = $1', [id]);
    return job as JobRow;
  }

  /** A provisioner job's status (undefined when the job is gone). */
  async jobStatus(jobId: string): Promise<string | undefined> {
    const [row] = (await this.dataSource.query('SELECT status FROM provisioner_jobs WHERE id = $1', [
      jobId,
    ])) as { status: string }[];
    return row?.status;
  }

  /** A job's log lines after the given id. */
  async jobLogs(jobId: string, after: number) {
    return (await this.dataSource.query(
      'SELECT id::int, created_at, log_source, log_level, stage, output FROM provisioner_job_logs WHERE job_id = $1 AND id > $2 ORDER BY id',
      [jobId, after],
    )) as {
      id: number;
      created_at: Date;
      log_source: string;
      log_level: string;
      stage: string;
      output: string;
    }[];
  }
}

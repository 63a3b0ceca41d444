/** A DataSource or a transaction's EntityManager. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}
import { PREBUILDS_USER_ID, PREBUILDS_USER_NAME } from './events';

/** Rows the presenters need, loaded in a fixed number of queries for any number of workspaces. */
export interface JobRow {
  id: string;
  organization_id: string;
  type: string;
  status: string;
  input: { template_version_id?: string; workspace_build_id?: string };
  initiator_id: string;
  tags: Record<string, string>;
  worker_id: string | null;
  worker_name: string | null;
  error: string | null;
  error_code: string | null;
  started_at: Date | null;
  completed_at: Date | null;
  canceled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  attempts: number;
}

export interface AgentRow {
  id: string;
  resource_id: string;
  workspace_id: string;
  name: string;
  directory: string;
  environment_variables: Record<string, string>;
  apps: {
    id: string;
    slug: string;
    display_name: string;
    command?: string;
    url?: string;
    icon?: string;
    health?: string;
  }[];
  lifecycle_state: string;
  version: string;
  operating_system: string;
  architecture: string;
  first_connected_at: Date | null;
  last_connected_at: Date | null;
  disconnected_at: Date | null;
  started_at: Date | null;
  ready_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface ResourceRow {
  id: string;
  job_id: string;
  transition: string;
  type: string;
  name: string;
  icon: string;
  created_at: Date;
  agents: AgentRow[];
}

export interface BuildRow {
  id: string;
  workspace_id: string;
  template_version_id: string;
  template_version_preset_id: string | null;
  build_number: number;
  transition: string;
  reason: string;
  initiator_id: string;
  job_id: string;
  has_ai_task: boolean;
  is_claim: boolean;
  created_at: Date;
  updated_at: Date;
  version_name: string;
  job: JobRow;
  resources: ResourceRow[];
  workspace_name: string;
  owner_id: string;
  template_id: string;
  template_name: string;
  template_display_name: string;
  template_icon: string;
}

export interface WorkspaceRow {
  id: string;
  owner_id: string;
  organization_id: string;
  template_id: string;
  name: string;
  user_acl: Record<string, string[]>;
  group_acl: Record<string, string[]>;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date;
  template_name: string;
  template_display_name: string;
  template_icon: string;
  template_active_version_id: string;
  organization_name: string;
  task_prompt: string | null;
  task_display_name: string | null;
}

export interface UserSummary {
  name: string;
  avatar_url: string;
}

/** Owner and initiator names (the prebuilds system user is not a row of `users`). */
export async function loadUsers(dataSource: Queryable, ids: string[]): Promise<Map<string, UserSummary>> {
  const unique = [...new Set(ids.filter((id) => id && id !== PREBUILDS_USER_ID))];
  const map = new Map<string, UserSummary>([
    [PREBUILDS_USER_ID, { name: PREBUILDS_USER_NAME, avatar_url: '' }],
  ]);
  if (unique.length === 0) return map;
  const rows = (await dataSource.query(
    'SELECT uuid, name, avatar_url FROM users WHERE uuid = ANY($1::uuid[])',
    [unique],
  )) as { uuid: string; name: string; avatar_url: string | null }[];
  for (const row of rows) map.set(row.uuid, { name: row.name, avatar_url: row.avatar_url ?? '' });
  return map;
}

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
         t.active_version_id AS template_active_version_id, o.name AS organization_name
    FROM workspaces w JOIN templates t ON t.id = w.template_id
    LEFT JOIN users o ON o.uuid = w.organization_id`;

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

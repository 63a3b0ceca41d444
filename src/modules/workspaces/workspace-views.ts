/** A DataSource or a transaction's EntityManager. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

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
    subdomain?: boolean;
    share?: string;
    max_share?: string;
    healthcheck?: { url: string; interval: number; threshold: number };
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
  task_prompt: string | null;
  task_display_name: string | null;
}

export interface UserSummary {
  name: string;
  avatar_url: string;
}

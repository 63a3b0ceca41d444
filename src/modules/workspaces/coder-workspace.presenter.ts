import type { AgentRow, BuildRow, JobRow, ResourceRow, UserSummary, WorkspaceRow } from './workspace-views';

/** Coder's JSON for workspaces, builds, jobs, resources and agents (codersdk types). */

const iso = (value: Date | string | null | undefined): string | undefined =>
  value === null || value === undefined ? undefined : new Date(value).toISOString();

/** Coder's WorkspaceStatus from the latest build's job and transition. */
export function workspaceStatus(jobStatus: string, transition: string): string {
  switch (jobStatus) {
    case 'pending':
      return 'pending';
    case 'running':
      return transition === 'start' ? 'starting' : transition === 'stop' ? 'stopping' : 'deleting';
    case 'succeeded':
      return transition === 'start' ? 'running' : transition === 'stop' ? 'stopped' : 'deleted';
    case 'canceling':
      return 'canceling';
    case 'canceled':
      return 'canceled';
    default:
      return 'failed';
  }
}

export interface JobMetadata {
  template_version_name: string;
  template_id: string;
  template_name: string;
  template_display_name: string;
  template_icon: string;
  workspace_id?: string;
  workspace_name?: string;
  workspace_build_transition?: string;
}

export function presentJob(job: JobRow, metadata: JobMetadata, queue?: { position: number; size: number }) {
  return {
    id: job.id,
    created_at: iso(job.created_at),
    started_at: iso(job.started_at),
    completed_at: iso(job.completed_at),
    canceled_at: iso(job.canceled_at),
    error: job.error ?? undefined,
    error_code: job.error_code ?? undefined,
    status: job.status,
    worker_id: job.worker_id ?? undefined,
    worker_name: job.worker_name ?? undefined,
    file_id: '00000000-0000-0000-0000-000000000000',
    tags: job.tags ?? {},
    queue_position: queue?.position ?? 0,
    queue_size: queue?.size ?? 0,
    organization_id: job.organization_id,
    initiator_id: job.initiator_id,
    input: {
      template_version_id: job.input.template_version_id,
      workspace_build_id: job.input.workspace_build_id,
    },
    type: job.type,
    available_workers: [],
    metadata: {
      template_version_name: metadata.template_version_name,
      // uuid.UUID in Go: the zero uuid for an import of a version that is not part of a template yet.
      template_id: metadata.template_id || '00000000-0000-0000-0000-000000000000',
      template_name: metadata.template_name,
      template_display_name: metadata.template_display_name,
      template_icon: metadata.template_icon,
      workspace_id: metadata.workspace_id,
      workspace_name: metadata.workspace_name,
      // Coder: start/stop/delete for build jobs; `omitempty`, so absent for the others (issue 33.12).
      workspace_build_transition: metadata.workspace_build_transition || undefined,
    },
    logs_overflowed: false,
  };
}

/** Coder's agent status: connecting until first heard, connected while heard within the timeout. */
export function agentStatus(agent: AgentRow, disconnectMs: number, now = Date.now()): string {
  if (!agent.first_connected_at) return 'connecting';
  const last = agent.last_connected_at ? new Date(agent.last_connected_at).getTime() : 0;
  if (agent.disconnected_at && new Date(agent.disconnected_at).getTime() >= last) return 'disconnected';
  return now - last > disconnectMs ? 'disconnected' : 'connected';
}

export function presentAgent(agent: AgentRow, disconnectMs: number) {
  const status = agentStatus(agent, disconnectMs);
  const healthy = status === 'connected';
  return {
    id: agent.id,
    // Go's uuid.NullUUID marshals to null or the uuid string; devplane has no sub-agents (Coder's page keeps
    // the agents whose parent_id is null).
    parent_id: null,
    created_at: iso(agent.created_at),
    updated_at: iso(agent.updated_at),
    first_connected_at: iso(agent.first_connected_at),
    last_connected_at: iso(agent.last_connected_at),
    disconnected_at: iso(agent.disconnected_at),
    started_at: iso(agent.started_at),
    ready_at: iso(agent.ready_at),
    status,
    lifecycle_state: agent.lifecycle_state,
    name: agent.name,
    resource_id: agent.resource_id,
    instance_id: '',
    architecture: agent.architecture,
    environment_variables: agent.environment_variables ?? {},
    operating_system: agent.operating_system,
    logs_length: 0,
    logs_overflowed: false,
    directory: agent.directory,
    expanded_directory: agent.directory,
    version: agent.version,
    api_version: '2.0',
    apps: (agent.apps ?? []).map((app) => ({
      id: app.id,
      url: app.url ?? '',
      external: false,
      slug: app.slug,
      display_name: app.display_name,
      command: app.command ?? '',
      icon: app.icon ?? '',
      subdomain: app.subdomain ?? false,
      sharing_level: app.share ?? 'owner',
      healthcheck: app.healthcheck ?? { url: '', interval: 0, threshold: 0 },
      // Coder: `disabled` without a healthcheck; the agent reports healthy/unhealthy, until then `initializing`.
      health: app.healthcheck ? (app.health ?? 'initializing') : 'disabled',
      group: '',
      hidden: false,
      open_in: 'slim-window',
      statuses: [],
    })),
    latency: {},
    connection_timeout_seconds: 120,
    troubleshooting_url: '',
    subsystems: [],
    health: healthy ? { healthy: true } : { healthy: false, reason: `agent is ${status}` },
    display_apps: [],
    log_sources: [],
    scripts: [],
    startup_script_behavior: 'non-blocking',
  };
}

export function presentResource(resource: ResourceRow, disconnectMs: number) {
  return {
    id: resource.id,
    created_at: iso(resource.created_at),
    job_id: resource.job_id,
    workspace_transition: resource.transition,
    type: resource.type,
    name: resource.name,
    hide: false,
    icon: resource.icon,
    agents: resource.agents.map((agent) => presentAgent(agent, disconnectMs)),
    metadata: [],
    daily_cost: 0,
  };
}

export function buildMetadata(build: BuildRow): JobMetadata {
  return {
    template_version_name: build.version_name,
    template_id: build.template_id,
    template_name: build.template_name,
    template_display_name: build.template_display_name,
    template_icon: build.template_icon,
    workspace_id: build.workspace_id,
    workspace_name: build.workspace_name,
    workspace_build_transition: build.transition,
  };
}

export function presentBuild(build: BuildRow, users: Map<string, UserSummary>, disconnectMs: number) {
  const owner = users.get(build.owner_id);
  return {
    id: build.id,
    created_at: iso(build.created_at),
    updated_at: iso(build.updated_at),
    workspace_id: build.workspace_id,
    workspace_name: build.workspace_name,
    workspace_owner_id: build.owner_id,
    workspace_owner_name: owner?.name ?? '',
    workspace_owner_avatar_url: owner?.avatar_url ?? '',
    template_version_id: build.template_version_id,
    template_version_name: build.version_name,
    build_number: build.build_number,
    transition: build.transition,
    initiator_id: build.initiator_id,
    initiator_name: users.get(build.initiator_id)?.name ?? '',
    job: presentJob(build.job, buildMetadata(build)),
    reason: build.reason,
    resources: build.resources.map((resource) => presentResource(resource, disconnectMs)),
    deadline: undefined,
    max_deadline: undefined,
    status: workspaceStatus(build.job.status, build.transition),
    daily_cost: 0,
    matched_provisioners: undefined,
    // `*uuid.UUID` without omitempty: null when the build used no preset.
    template_version_preset_id: build.template_version_preset_id ?? null,
    has_ai_task: build.has_ai_task,
    has_external_agent: false,
  };
}

export function presentWorkspace(
  workspace: WorkspaceRow,
  latest: BuildRow,
  users: Map<string, UserSummary>,
  disconnectMs: number,
) {
  const owner = users.get(workspace.owner_id);
  const build = presentBuild(latest, users, disconnectMs);
  const agents = build.resources.flatMap((resource) => resource.agents);
  const failing = agents.filter((agent) => !agent.health.healthy).map((agent) => agent.id);
  return {
    id: workspace.id,
    created_at: iso(workspace.created_at),
    updated_at: iso(workspace.updated_at),
    owner_id: workspace.owner_id,
    owner_name: owner?.name ?? '',
    owner_avatar_url: owner?.avatar_url ?? '',
    organization_id: workspace.organization_id,
    organization_name: users.get(workspace.organization_id)?.name ?? '',
    template_id: workspace.template_id,
    template_name: workspace.template_name,
    template_display_name: workspace.template_display_name,
    template_icon: workspace.template_icon,
    template_allow_user_cancel_workspace_jobs: false,
    template_active_version_id: workspace.template_active_version_id,
    template_require_active_version: false,
    template_use_classic_parameter_flow: false,
    latest_build: build,
    latest_app_status: null,
    outdated: latest.template_version_id !== workspace.template_active_version_id,
    name: workspace.name,
    autostart_schedule: undefined,
    ttl_ms: undefined,
    last_used_at: iso(workspace.last_used_at),
    // `*time.Time` without omitempty in Coder: null when unset.
    deleting_at: null,
    dormant_at: null,
    health: {
      healthy: build.status !== 'running' || failing.length === 0,
      failing_agents: build.status === 'running' ? failing : [],
    },
    automatic_updates: 'never',
    allow_renames: false,
    favorite: false,
    next_start_at: null,
    is_prebuild: workspace.owner_id === 'c42fdf75-3097-471c-8c33-fb52454d81c0',
  };
}

/**
 * The provisioner daemon protocol's payloads, shared by the server (src/modules/workspaces) and the
 * daemons (src/provisioner): a daemon authenticates with a provisioner key, long-polls
 * `POST /api/v2/provisionerdaemons/jobs/acquire`, reports logs (renewing its lease) and completes or
 * fails the job. See src/modules/workspaces/README.md.
 */

/** The built-in provisioner's template (a JSON document stored with the template version). */
export interface TemplateDefinition {
  directory?: string;
  files?: Record<string, string>;
  env?: Record<string, string>;
  apps?: {
    slug: string;
    display_name?: string;
    command?: string;
    url?: string;
    icon?: string;
    /** Coder's `subdomain`: served at `{slug}--{agent}--{workspace}--{owner}` under WILDCARD_ACCESS_URL. */
    subdomain?: boolean;
    /** Coder's `share`: owner (default), authenticated, organization, public. */
    share?: 'owner' | 'authenticated' | 'organization' | 'public';
    /** Coder's healthcheck: `interval` seconds between probes, `threshold` failures in a row = unhealthy. */
    healthcheck?: { url: string; interval: number; threshold: number };
  }[];
  /** The widest sharing level an app of this template may have (default `owner`; Coder's max_port_share_level). */
  max_share_level?: 'owner' | 'authenticated' | 'organization' | 'public';
  /** Shell command the agent runs at each start (and again after a reinit for a new owner). */
  startup_script?: string;
  /**
   * Shell command the provisioner runs in the workspace directory during a start build, before the
   * agent starts (Terraform's local-exec): its output becomes the build log, a non-zero exit fails the build.
   */
  provision_script?: string;
  has_ai_task?: boolean;
  /**
   * Agent metadata (Coder's `coder_agent.metadata`): each script runs in the workspace every `interval`
   * seconds, killed after `timeout` seconds; its output is shown on the workspace page.
   */
  metadata?: { key: string; display_name: string; script: string; interval: number; timeout: number }[];
  /** The desktop's VNC server command (served by the agent for chats, later). */
  vnc_command?: string;
  presets?: {
    name: string;
    parameters?: Record<string, string>;
    prebuilds?: { instances?: number };
    default?: boolean;
  }[];
}

export type ProvisionerJobKind = 'template_version_import' | 'workspace_build';

/** What a daemon gets for a job: everything it needs, so it never reads the database. */
export interface AcquiredJob {
  job_id: string;
  type: ProvisionerJobKind;
  lease_ms: number;
  template_version: { id: string; name: string; definition: TemplateDefinition };
  /** Build jobs only. */
  workspace_build?: {
    id: string;
    build_number: number;
    transition: 'start' | 'stop' | 'delete';
    workspace_id: string;
    workspace_name: string;
    owner_id: string;
    owner_name: string;
    /** A claim build: the running agent stays, it re-initializes for the new owner. */
    claim: boolean;
    agent: { id: string; token: string; name: string } | null;
    /** The workspace's own OS uid (= gid) from WORKSPACE_UID_RANGE, kept across builds (issue 30). */
    os_uid?: number;
    /** The owner is a site owner (the only one who gets a workspace when no isolation is possible). */
    owner_site_owner?: boolean;
  };
}

/** One log line a daemon reports. */
export interface JobLog {
  level?: string;
  stage?: string;
  output: string;
}

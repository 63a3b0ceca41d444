/**
 * The provisioner daemon protocol (devplane's own, over HTTP): a daemon authenticates with a
 * provisioner key (`Service-Provisioner-Key`), long-polls `POST /api/v2/provisionerdaemons/jobs/acquire`,
 * reports logs (which renews its lease) and completes or fails the job. The shapes here mirror
 * `src/modules/workspaces/provisioner-jobs.service.ts` (the server side); programs do not import modules.
 */
export interface TemplateDefinition {
  directory?: string;
  files?: Record<string, string>;
  env?: Record<string, string>;
  apps?: { slug: string; display_name?: string; command?: string; url?: string }[];
  startup_script?: string;
  provision_script?: string;
  has_ai_task?: boolean;
  vnc_command?: string;
}

export interface AcquiredJob {
  job_id: string;
  type: 'template_version_import' | 'workspace_build';
  lease_ms: number;
  template_version: { id: string; name: string; definition: TemplateDefinition };
  workspace_build?: {
    id: string;
    build_number: number;
    transition: 'start' | 'stop' | 'delete';
    workspace_id: string;
    workspace_name: string;
    owner_id: string;
    owner_name: string;
    claim: boolean;
    agent: { id: string; token: string; name: string } | null;
  };
}

export interface JobLog {
  level?: 'debug' | 'info' | 'warn' | 'error';
  stage?: string;
  output: string;
}

/** How a daemon talks to devplane: over HTTP (the standalone program) or in process (embedded daemons). */
export interface ProvisionerTransport {
  acquire(
    workerId: string,
    workerName: string,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<AcquiredJob | null>;
  report(workerId: string, jobId: string, logs: JobLog[]): Promise<void>;
  complete(workerId: string, jobId: string): Promise<void>;
  fail(workerId: string, jobId: string, error: string): Promise<void>;
}

/** The job is no longer this daemon's (its lease expired and another took it): stop working on it. */
export class LeaseLostError extends Error {}

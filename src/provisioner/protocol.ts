/**
 * The provisioner daemon protocol (devplane's own, over HTTP): a daemon authenticates with a
 * provisioner key (`Service-Provisioner-Key`), long-polls `POST /api/v2/provisionerdaemons/jobs/acquire`,
 * reports logs (which renews its lease) and completes or fails the job. The shapes here mirror
 * `src/modules/workspaces/provisioner-jobs.service.ts` (the server side); programs do not import modules.
 */
import type { AcquiredJob, JobLog } from '../platform/ports/provisioner-protocol';

export type { AcquiredJob, JobLog };

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
  /** A workspace went beyond a limit the daemon enforces: the server makes a `stop` build for it. */
  stopWorkspace(workerId: string, workspaceId: string, reason: string): Promise<void>;
}

/** The job is no longer this daemon's (its lease expired and another took it): stop working on it. */
export class LeaseLostError extends Error {}

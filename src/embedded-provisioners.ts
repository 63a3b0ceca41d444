import type { INestApplication } from '@nestjs/common';
import path from 'node:path';
import type { AppConfig } from './platform/config/app-config';
import { int } from './platform/config/app-config';
import { ConflictError } from './platform/errors/domain-error';
import { embeddedCaller, ProvisionerJobsService } from './modules/workspaces/provisioner-jobs.service';
import { agentCommandFrom, BuiltinProvisioner } from './provisioner/builtin-provisioner';
import { ProvisionerDaemon } from './provisioner/daemon';
import { isolationBanner, resolveIsolation } from './provisioner/sandbox/launcher';
import { networkBanner, networkFrom } from './provisioner/sandbox/network';
import { detectCgroups, limitsBanner, limitsFrom } from './provisioner/sandbox/limits';
import { isolationFrom } from './modules/workspaces/workspaces.config';
import { WorkspacesService } from './modules/workspaces/workspaces.service';
import {
  type AcquiredJob,
  type JobLog,
  LeaseLostError,
  type ProvisionerTransport,
} from './provisioner/protocol';

/** The daemon protocol in process: embedded daemons call the job service directly and serve every organization. */
class InProcessTransport implements ProvisionerTransport {
  constructor(
    private readonly jobs: ProvisionerJobsService,
    private readonly workspaces: WorkspacesService,
  ) {}

  private async fenced<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ConflictError) throw new LeaseLostError(error.message);
      throw error;
    }
  }

  async acquire(
    workerId: string,
    workerName: string,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<AcquiredJob | null> {
    return (await this.jobs.acquire(
      { organizationId: null, workerId, workerName },
      waitMs,
      signal,
    )) as AcquiredJob | null;
  }

  report(workerId: string, jobId: string, logs: JobLog[]): Promise<void> {
    return this.fenced(() => this.jobs.report(embeddedCaller(workerId), jobId, logs));
  }

  complete(workerId: string, jobId: string): Promise<void> {
    return this.fenced(() => this.jobs.complete(embeddedCaller(workerId), jobId));
  }

  fail(workerId: string, jobId: string, error: string): Promise<void> {
    return this.fenced(() => this.jobs.fail(embeddedCaller(workerId), jobId, error));
  }

  async stopWorkspace(_workerId: string, workspaceId: string, _reason: string): Promise<void> {
    await this.workspaces.stopForProvisioner(workspaceId, null);
  }
}

/**
 * `PROVISIONER_DAEMONS` built-in provisioner daemons inside the server (default 1 with the embedded
 * database, 0 with DATABASE_URL: a deployment with a PostgreSQL server runs `node dist/provisioner.js`).
 * Workspaces live in `DATA_DIR/workspaces`; their agents talk to this server on its listen port.
 */
export function startEmbeddedProvisioners(
  app: INestApplication,
  config: AppConfig,
  embeddedDatabase: boolean,
  port: number,
): () => Promise<void> {
  const count = int(config.env, 'PROVISIONER_DAEMONS', embeddedDatabase ? 1 : 0, 0, 64);
  if (count === 0) return async () => undefined;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  // Workspace isolation (issue 30): the strongest this host allows under `auto`; the boot log says which.
  const isolation = resolveIsolation(isolationFrom(config.env));
  process.stdout.write(isolationBanner(isolation));
  // Issue 53: per-workspace limits (cgroups where the host has them, a sized /tmp); the boot line says which.
  const limits = limitsFrom(config.env as NodeJS.ProcessEnv);
  const cgroups = isolation.mode === 'none' ? undefined : detectCgroups();
  if (cgroups) process.stdout.write(limitsBanner(limits, cgroups));
  const network = isolation.mode === 'sandbox' ? networkFrom(config.env as NodeJS.ProcessEnv) : undefined;
  if (network) process.stdout.write(networkBanner(network));
  const provisioner = new BuiltinProvisioner({
    isolation,
    network,
    hidden: [path.resolve(config.dataDir)],
    workspacesDir: path.join(config.dataDir, 'workspaces'),
    // Issue 53: the provisioner's own state per workspace, root's (0700), never inside the workspace.
    stateDir: path.join(config.dataDir, 'workspace-state'),
    limits,
    cgroups,
    agentConnectTimeoutMs: int(config.env, 'PROVISIONER_AGENT_CONNECT_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    serverUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    agentCommand: agentCommandFrom(config.env),
  });
  const transport = new InProcessTransport(app.get(ProvisionerJobsService), app.get(WorkspacesService));
  const daemons = Array.from(
    { length: count },
    (_, index) => new ProvisionerDaemon(transport, provisioner, { name: `built-in-${index + 1}` }),
  );
  for (const daemon of daemons) daemon.start();
  const diskWatch = provisioner.watchDisk((workspaceId, reason) =>
    transport.stopWorkspace(daemons[0]!.workerId, workspaceId, reason),
  );
  return async () => {
    await diskWatch?.stop();
    await Promise.all(daemons.map((daemon) => daemon.stop()));
  };
}

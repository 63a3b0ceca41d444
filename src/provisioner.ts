import path from 'node:path';
import { agentCommandFrom, BuiltinProvisioner } from './provisioner/builtin-provisioner';
import { ProvisionerDaemon } from './provisioner/daemon';
import { HttpProvisionerTransport } from './provisioner/http-transport';
import { installProcessSafetyNet } from './platform/logging/process-safety-net';
import {
  type IsolationSetting,
  ISOLATION_SETTINGS,
  isolationBanner,
  resolveIsolation,
} from './provisioner/sandbox/launcher';
import { networkBanner, networkFrom } from './provisioner/sandbox/network';
import { detectCgroups, limitsBanner, limitsFrom } from './provisioner/sandbox/limits';

/**
 * `node dist/provisioner.js`: the built-in provisioner as a standalone daemon.
 *   DEVPLANE_URL                 the server (default http://127.0.0.1:3000)
 *   DEVPLANE_PROVISIONER_KEY     an organization's provisioner key (required)
 *   PROVISIONER_NAME             the name jobs show as `worker_name` (default: host and pid)
 *   PROVISIONER_WORKSPACES_DIR   where workspaces live (default DATA_DIR/workspaces, DATA_DIR=./data)
 *   PROVISIONER_DAEMONS          daemons in this process (default 1)
 *   WORKSPACE_ISOLATION          auto | sandbox | user | none (src/provisioner/sandbox; default auto)
 *   PROVISIONER_HIDDEN_PATHS     colon-separated paths workspaces must not see (default: DATA_DIR)
 *   PROVISIONER_STATE_DIR        the provisioner's own state per workspace (default: workspace-state beside
 *                                the workspaces directory); root's, 0700
 *   WORKSPACE_MEMORY_LIMIT_MB, WORKSPACE_PIDS_LIMIT, WORKSPACE_CPU_WEIGHT, WORKSPACE_TMP_SIZE_MB
 *                                per-workspace limits (src/modules/workspaces/README.md)
 *   PROVISIONER_AGENT_CONNECT_TIMEOUT_MS  a build fails when its agent has not reached the server by then (60000)
 */
function main(): void {
  installProcessSafetyNet();
  const url = process.env.DEVPLANE_URL ?? 'http://127.0.0.1:3000';
  const key = process.env.DEVPLANE_PROVISIONER_KEY;
  if (!key) {
    process.stderr.write(
      'devplane provisioner: DEVPLANE_PROVISIONER_KEY is required (POST /api/v2/organizations/{org}/provisionerkeys)\n',
    );
    process.exit(2);
  }
  const workspacesDir = path.resolve(
    process.env.PROVISIONER_WORKSPACES_DIR ?? path.join(process.env.DATA_DIR ?? './data', 'workspaces'),
  );
  const count = Number.parseInt(process.env.PROVISIONER_DAEMONS ?? '1', 10) || 1;
  const transport = new HttpProvisionerTransport(url, key);
  const setting = (process.env.WORKSPACE_ISOLATION ?? 'auto') as IsolationSetting;
  if (!ISOLATION_SETTINGS.includes(setting)) {
    process.stderr.write(
      'devplane provisioner: WORKSPACE_ISOLATION must be one of auto, sandbox, user, none\n',
    );
    process.exit(2);
  }
  let isolation;
  try {
    isolation = resolveIsolation(setting);
  } catch (error) {
    process.stderr.write(`devplane provisioner: ${(error as Error).message}\n`);
    process.exit(2);
  }
  process.stdout.write(isolationBanner(isolation));
  let limits;
  try {
    limits = limitsFrom(process.env);
  } catch (error) {
    process.stderr.write(`devplane provisioner: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const cgroups = isolation.mode === 'none' ? undefined : detectCgroups();
  if (cgroups) process.stdout.write(limitsBanner(limits, cgroups));
  let network;
  try {
    network = isolation.mode === 'sandbox' ? networkFrom(process.env) : undefined;
  } catch (error) {
    process.stderr.write(`devplane provisioner: ${(error as Error).message}\n`);
    process.exit(2);
  }
  if (network) process.stdout.write(networkBanner(network));
  const hidden = (process.env.PROVISIONER_HIDDEN_PATHS ?? path.resolve(process.env.DATA_DIR ?? './data'))
    .split(':')
    .filter(Boolean)
    .map((entry) => path.resolve(entry));
  const provisioner = new BuiltinProvisioner({
    isolation,
    network,
    hidden,
    workspacesDir,
    limits,
    cgroups,
    stateDir: process.env.PROVISIONER_STATE_DIR ? path.resolve(process.env.PROVISIONER_STATE_DIR) : undefined,
    agentConnectTimeoutMs:
      Number.parseInt(process.env.PROVISIONER_AGENT_CONNECT_TIMEOUT_MS ?? '', 10) > 0
        ? Number.parseInt(process.env.PROVISIONER_AGENT_CONNECT_TIMEOUT_MS!, 10)
        : undefined,
    serverUrl: url,
    agentCommand: agentCommandFrom(process.env),
  });
  const name = process.env.PROVISIONER_NAME ?? `provisioner-${process.pid}`;
  const daemons = Array.from(
    { length: count },
    (_, index) =>
      new ProvisionerDaemon(transport, provisioner, {
        name: count > 1 ? `${name}-${index + 1}` : name,
        log: (message) => process.stdout.write(`${new Date().toISOString()} ${message}\n`),
      }),
  );
  for (const daemon of daemons) daemon.start();
  // Issue 53: the workspace directory's size, measured and stopped beyond WORKSPACE_DISK_LIMIT_MB.
  const diskWatch = provisioner.watchDisk((workspaceId, reason) =>
    transport.stopWorkspace(daemons[0]!.workerId, workspaceId, reason).catch((error: unknown) => {
      process.stdout.write(
        `${new Date().toISOString()} stop of ${workspaceId} (${reason}) failed: ${String(error)}\n`,
      );
    }),
  );
  process.stdout.write(
    `devplane provisioner ${name}: ${count} daemon(s) for ${url}, workspaces in ${workspacesDir}\n`,
  );
  const shutdown = () => {
    void Promise.all([diskWatch?.stop(), ...daemons.map((daemon) => daemon.stop())]).then(() =>
      process.exit(0),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main();

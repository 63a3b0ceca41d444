import os from 'node:os';
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { createTestApp, TEST_SECRETS_KEY, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate } from './helpers';

const ROOT = path.join(__dirname, '..', '..');

/**
 * Issue 31.3 and 31.5 against the real server process (src/main.ts with its built-in daemon):
 * a provisioner key of another organization cannot report on, fail or complete a job (404), and
 * losing a job's lease while a chatty provision script prints never ends the server (same PID).
 */
describe('provisioner jobs: bound to their daemon, and a lost lease never ends the server', () => {
  let t: TestApp;
  let child: ChildProcess;
  let output = '';
  let url = '';
  const dataDir = `${os.tmpdir()}/devplane-test/jobsec-${process.pid}-${Date.now()}`;
  const client = coderClient(() => url);

  beforeAll(async () => {
    t = await createTestApp();
    child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_SCHEMA: t.schema,
        DATA_DIR: dataDir,
        SECRETS_KEY: TEST_SECRETS_KEY,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_ENABLED: 'false',
        PROVISIONER_DAEMONS: '1',
        PROVISIONER_LEASE_MS: '3000',
        PROVISIONER_AGENT_COMMAND: JSON.stringify([
          process.execPath,
          '-r',
          require.resolve('@swc-node/register'),
          path.join(ROOT, 'src', 'agent.ts'),
        ]),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    url = await waitFor(
      () => /devplane listening on 127\.0\.0\.1:(\d+)/.exec(output)?.[1],
      90_000,
      'server start',
    ).then((port) => `http://127.0.0.1:${port}`);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    killAgents(path.join(dataDir, 'workspaces'));
    rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  });

  it('another organization key gets 404; a lost lease while the script prints leaves the server serving', async () => {
    // The boot log names the workspace isolation mode (issue 30 item 4).
    expect(output).toMatch(/devplane: (WARNING: )?workspace isolation: (sandbox|user|none) \(/);
    const admin = await t.factories.admin({ username: 'jobsecadmin' });
    // The chatty provision script: a line every 20 ms for ~10 s.
    const { templateId } = await createTemplate(client, admin.token, 'chatty', {
      provision_script: 'i=0; while [ $i -lt 500 ]; do echo "line $i"; i=$((i+1)); sleep 0.02; done',
    });
    const workspace = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'chatty',
        template_id: templateId,
      }),
      201,
    );
    const build = await waitFor(
      async () => {
        const current = await client.json(
          await client.api(admin.token, 'GET', `/api/v2/workspacebuilds/${workspace.latest_build.id}`),
          200,
        );
        return current.job.status === 'running' && current.job.worker_id ? current : undefined;
      },
      30_000,
      'build running',
    );
    const jobId: string = build.job.id;
    const workerId: string = build.job.worker_id;
    await waitFor(
      async () => {
        const logs = await client.json(
          await client.api(admin.token, 'GET', `/api/v2/workspacebuilds/${build.id}/logs`),
          200,
        );
        return (logs as { output: string }[]).some((line) => line.output.startsWith('line ')) || undefined;
      },
      30_000,
      'script output in the build log',
    );

    // Issue 31.5: a key of another organization, with the worker id shown in the build JSON.
    await client.json(
      await client.api(admin.token, 'POST', '/api/v2/organizations', {
        name: 'rival',
        display_name: 'Rival',
      }),
      201,
    );
    const rival = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/organizations/rival/provisionerkeys', { name: 'rk' }),
      201,
    );
    const asKey = (key: string, route: string, body: unknown) =>
      fetch(`${url}/api/v2/provisionerdaemons/jobs/${jobId}/${route}`, {
        method: 'POST',
        headers: { 'Service-Provisioner-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const [route, body] of [
      ['report', { worker_id: workerId, logs: [{ output: 'forged' }] }],
      ['fail', { worker_id: workerId, error: 'forged' }],
      ['complete', { worker_id: workerId }],
    ] as const)
      expect((await asKey(rival.key, route, body)).status).toBe(404);
    // A key of the job's own organization is not the daemon's key either: 409, the job untouched.
    const own = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'own' }),
      201,
    );
    expect((await asKey(own.key, 'fail', { worker_id: workerId, error: 'forged' })).status).toBe(409);
    const [still] = (await t.dataSource.query('SELECT status, error FROM provisioner_jobs WHERE id = $1', [
      jobId,
    ])) as { status: string; error: string | null }[];
    expect(still).toEqual({ status: 'running', error: null });

    // Issue 31.3: the lease is lost while the script prints (the job is failed under the daemon).
    await t.dataSource.query(
      `UPDATE provisioner_jobs SET status = 'failed', error = 'taken away', completed_at = now() WHERE id = $1`,
      [jobId],
    );
    // The daemon's next report meets the lost lease; the script is stopped, the server keeps serving.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    const alive = await fetch(`${url}/api/v2/buildinfo`);
    expect(alive.status).toBe(200);
    expect(output).not.toMatch(/unhandled promise rejection|uncaught exception/);
    const [after] = (await t.dataSource.query('SELECT status, error FROM provisioner_jobs WHERE id = $1', [
      jobId,
    ])) as { status: string; error: string }[];
    expect(after).toEqual({ status: 'failed', error: 'taken away' });
    // The server still builds: a new workspace on a quiet template succeeds.
    const { templateId: quiet } = await createTemplate(client, admin.token, 'quiet', {});
    expect(quiet).toBeTruthy();
  }, 120_000);

  it('the process safety net logs an unhandled rejection and the process keeps running', async () => {
    const probe = spawn(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        '-e',
        `require(${JSON.stringify(path.join(ROOT, 'src/platform/logging/process-safety-net.ts'))}).installProcessSafetyNet();
         Promise.reject(new Error('nobody awaited this'));
         setTimeout(() => { throw new Error('thrown in a timer'); }, 50);
         setTimeout(() => { process.stdout.write('still serving\\n'); process.exit(0); }, 300);`,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    probe.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    probe.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => probe.once('exit', resolve));
    expect(code).toBe(0);
    expect(text).toContain(
      'unhandled promise rejection (the process keeps serving): Error: nobody awaited this',
    );
    expect(text).toContain('uncaught exception (the process keeps serving): Error: thrown in a timer');
    expect(text).toContain('still serving');
  });
});

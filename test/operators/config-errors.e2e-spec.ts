import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { freePort } from '../helpers/free-port';

const ROOT = path.join(__dirname, '..', '..');

interface Started {
  code: number | null;
  stderr: string;
  stdout: string;
}

/**
 * `src/main.ts` as an operator starts it, with `env` over a minimal environment: resolves when it exits,
 * or once it listens (then stopped with SIGTERM and reported as code 0).
 */
function startServer(env: Record<string, string>): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        PROVISIONER_DAEMONS: '0',
        ADMIN_PASSWORD: 'Correct-Horse-Battery-Staple-42',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    let listening = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!listening && stdout.includes('devplane listening on')) {
        listening = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: listening ? 0 : code, stdout, stderr }));
  });
}

/** One line on stderr naming the setting, no stack, non-zero exit (issue 51.3). */
function expectOneLine(result: Started, setting: string, advice: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${setting} `));
  expect(lines[0]).toMatch(advice);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).not.toContain('[Nest]');
}

describe('configuration errors at start (issue 51.3) and a restored instance without its key (51.7)', () => {
  let tmp = '';
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'devplane-config-errors-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('DATA_DIR that cannot be created', async () => {
    const file = path.join(tmp, 'a-file');
    await writeFile(file, 'not a directory');
    const result = await startServer({ DATA_DIR: path.join(file, 'data') });
    expectOneLine(result, 'DATA_DIR', /ENOTDIR.*set DATA_DIR to a directory/);
  }, 120_000);

  it('a malformed SECRETS_KEY', async () => {
    const result = await startServer({ DATA_DIR: path.join(tmp, 'bad-key'), SECRETS_KEY: 'abc' });
    expectOneLine(result, 'SECRETS_KEY', /64 hex characters.*openssl rand -hex 32/);
    expect(existsSync(path.join(tmp, 'bad-key', 'secrets.key'))).toBe(false);
  }, 120_000);

  it('a port another process holds', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await startServer({ DATA_DIR: path.join(tmp, 'port'), PORT: String(port) });
      expectOneLine(result, 'PORT', new RegExp(`${port} on 127\\.0\\.0\\.1 is taken .*EADDRINUSE.*set PORT`));
    } finally {
      holder.close();
    }
  }, 120_000);

  describe('STORAGE_TYPE=s3', () => {
    const s3Env = (port: number, bucket: string) => ({
      // The SDK's own multi-line notice on Node < 22 (its support ends in 2027) is not the error under test.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      STORAGE_TYPE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
    });

    it('a bucket that does not exist', async () => {
      const s3 = new S3rver({
        address: '127.0.0.1',
        port: 0,
        silent: true,
        directory: path.join(tmp, 's3'),
        configureBuckets: [{ name: 'other', configs: [] }],
      });
      const { port } = (await s3.run()) as AddressInfo;
      try {
        const result = await startServer({
          DATA_DIR: path.join(tmp, 's3-missing'),
          ...s3Env(port, 'missing'),
        });
        expectOneLine(
          result,
          'S3_BUCKET',
          new RegExp(
            `"missing" does not exist at http://127\\.0\\.0\\.1:${port}: create it .*or set S3_BUCKET`,
          ),
        );
      } finally {
        await s3.close();
      }
    }, 120_000);

    it('an endpoint nobody answers at', async () => {
      const port = await freePort();
      const result = await startServer({ DATA_DIR: path.join(tmp, 's3-down'), ...s3Env(port, 'blobs') });
      expectOneLine(
        result,
        'S3_ENDPOINT',
        /cannot be reached \(ECONNREFUSED\): start the S3 server or fix S3_ENDPOINT/,
      );
    }, 120_000);
  });

  it('WORKSPACE_ISOLATION=sandbox where bubblewrap cannot run', async () => {
    // A bwrap that fails as it does without user namespaces (the provisioner's own probe runs it).
    const bin = path.join(tmp, 'no-userns-bin');
    await mkdir(bin, { recursive: true });
    await writeFile(
      path.join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
    );
    await chmod(path.join(bin, 'bwrap'), 0o755);
    const result = await startServer({
      DATA_DIR: path.join(tmp, 'isolation'),
      WORKSPACE_ISOLATION: 'sandbox',
      PROVISIONER_DAEMONS: '1',
      PATH: `${bin}:${process.env.PATH}`,
    });
    expectOneLine(
      result,
      'WORKSPACE_ISOLATION',
      /is sandbox, which this host cannot give \(.*\): .*apt-get install -y bubblewrap.*or set WORKSPACE_ISOLATION=auto/,
    );
    // Nothing was started: no database was created in DATA_DIR.
    expect(existsSync(path.join(tmp, 'isolation', 'pglite'))).toBe(false);
  }, 120_000);

  it('refuses to start a restored instance without its key, and writes no new one', async () => {
    const dataDir = path.join(tmp, 'restored');
    const first = await startServer({ DATA_DIR: dataDir });
    expect(first.code).toBe(0);
    const key = path.join(dataDir, 'secrets.key');
    expect(existsSync(key)).toBe(true);
    // A dump restored without --include-key: the database, but no secrets.key.
    await unlink(key);
    const second = await startServer({ DATA_DIR: dataDir });
    expectOneLine(second, 'SECRETS_KEY', new RegExp(`is unset and ${key} does not exist.*copy the original`));
    expect(second.stderr).toContain('No new key was written');
    expect(existsSync(key)).toBe(false);
  }, 240_000);
});

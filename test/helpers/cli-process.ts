import { spawn } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = path.join(__dirname, '..', '..');

/**
 * Runs the admin CLI from source as an operator would run `node dist/cli.js` (same code, compiled on the
 * fly), with `env` and nothing else of the test's environment but PATH, HOME and TMPDIR; logs silent.
 */
export function runCli(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        LOG_LEVEL: 'silent',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

import { spawn } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real git client, isolated from the machine's configuration, never prompting. */
export function git(args: string[], cwd: string, env: Record<string, string> = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 'test@example.com',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 'test@example.com',
        LANG: 'C',
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

export async function tempDir(prefix = 'devplane-git-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** `http://user:secret@host/owner/repo.git` (git sends them as Basic after the 401 challenge). */
export function cloneUrl(
  base: string,
  owner: string,
  repo: string,
  credentials?: { user: string; secret: string },
): string {
  const url = new URL(`${base}/${owner}/${repo}.git`);
  if (credentials) {
    url.username = encodeURIComponent(credentials.user);
    url.password = encodeURIComponent(credentials.secret);
  }
  return url.toString();
}

/** A credential helper script that answers git's prompt with fixed credentials. */
export async function credentialHelper(dir: string, user: string, secret: string): Promise<string> {
  const file = path.join(dir, 'credential-helper.sh');
  await writeFile(
    file,
    `#!/bin/sh\ntest "$1" = get || exit 0\necho username=${user}\necho password=${secret}\n`,
  );
  await chmod(file, 0o755);
  return file;
}

/** A working copy with one commit on `branch`, ready to push to `url`. */
export async function workingCopy(
  url: string,
  branch = 'main',
  file = 'hello.txt',
  content = 'hello\n',
): Promise<string> {
  const dir = await tempDir('devplane-wc-');
  await git(['init', '--quiet', `--initial-branch=${branch}`], dir);
  await writeFile(path.join(dir, file), content);
  await git(['add', file], dir);
  await git(['commit', '--quiet', '-m', `add ${file}`], dir);
  await git(['remote', 'add', 'origin', url], dir);
  return dir;
}

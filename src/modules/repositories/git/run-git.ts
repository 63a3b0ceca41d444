import { spawn } from 'node:child_process';

export interface RunGitOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to git's stdin, then closed. */
  input?: string | Buffer;
}

/** A git command that exited non-zero; `stderr` is git's own message. */
export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stderr: string,
    /** What git printed on stdout before it failed (merge-tree lists conflicts there). */
    readonly stdout = '',
  ) {
    super(`git ${args[0] ?? ''} failed (${code}): ${stderr.trim().split('\n').slice(-2).join(' ')}`);
  }
}

/** Environment for every git the server runs: no user or system config, no prompts, a fixed locale. */
export function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LANG: 'C',
    LC_ALL: 'C',
    ...extra,
  };
}

/** Runs git to completion and returns its stdout (small outputs only: refs, ids, config). */
export function runGit(args: string[], options: RunGitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: gitEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new GitCommandError(args, code, stderr, Buffer.concat(out).toString('utf8')));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  });
}

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GitCommandError, gitEnv, runGit } from '../git/run-git';

/** One entry of a tree (`ls-tree`): mode, kind, object id, blob size, path from the repository root. */
export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Blob size in bytes; 0 for trees and submodules. */
  size: number;
  path: string;
}

export interface LastCommit {
  sha: string;
  message: string;
  authorDate: string;
  committerDate: string;
}

export interface Signature {
  name: string;
  email: string;
  /** ISO date; git's own clock when absent. */
  date?: string;
}

/** A change of one path: a blob to write there, or its removal. */
export type TreeChange = { path: string; content: Buffer } | { path: string; remove: true };

const env = (gitDir: string, extra: NodeJS.ProcessEnv = {}) => ({ GIT_DIR: gitDir, ...extra });

/** Runs git and returns stdout as bytes (blob contents). */
export function runGitBytes(gitDir: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env: gitEnv(env(gitDir)), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new GitCommandError(args, code, stderr)),
    );
  });
}

/** Spawns git with stdout as a stream (archives); the caller pipes it and kills it when the client leaves. */
export function spawnGit(gitDir: string, args: string[]): ChildProcessWithoutNullStreams {
  return spawn('git', args, { env: gitEnv(env(gitDir)), stdio: ['pipe', 'pipe', 'pipe'] });
}

const LS_FORMAT = '--format=%(objectmode) %(objecttype) %(objectname) %(objectsize)%x09%(path)';

function parseEntries(out: string, prefix: string): TreeEntry[] {
  return out
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      const [mode, type, sha, size] = line.slice(0, tab).split(' ') as [
        string,
        TreeEntry['type'],
        string,
        string,
      ];
      const name = line.slice(tab + 1);
      return {
        mode,
        type,
        sha,
        size: size === '-' ? 0 : Number(size),
        path: prefix ? `${prefix}/${name}` : name,
      };
    });
}

/** Files, trees and commits through the git CLI, for the contents, commits and archive routes. */
export const ContentsGit = {
  /** The entry at `filePath` in `commit` (the root tree when the path is empty), or null. */
  async entry(gitDir: string, commit: string, filePath: string): Promise<TreeEntry | null> {
    if (!filePath) {
      const sha = (await runGit(['rev-parse', `${commit}^{tree}`], { env: env(gitDir) })).trim();
      return { mode: '040000', type: 'tree', sha, size: 0, path: '' };
    }
    const out = await runGit(['ls-tree', '-z', LS_FORMAT, commit, '--', filePath], { env: env(gitDir) });
    const found = parseEntries(out, '').find((entry) => entry.path === filePath);
    return found ?? null;
  },

  /** The entries of a tree (one level), their paths under `prefix`. */
  async list(gitDir: string, tree: string, prefix: string): Promise<TreeEntry[]> {
    return parseEntries(await runGit(['ls-tree', '-z', LS_FORMAT, tree], { env: env(gitDir) }), prefix);
  },

  /** Every entry below a tree (`ls-tree -r -t`), paths relative to it. */
  async listRecursive(gitDir: string, tree: string): Promise<TreeEntry[]> {
    return parseEntries(
      await runGit(['ls-tree', '-z', '-r', '-t', LS_FORMAT, tree], { env: env(gitDir) }),
      '',
    );
  },

  blob(gitDir: string, sha: string): Promise<Buffer> {
    return runGitBytes(gitDir, ['cat-file', 'blob', sha]);
  },

  /** The object's type, or null when it does not exist. */
  async objectType(gitDir: string, sha: string): Promise<string | null> {
    if (!/^[0-9a-f]{4,64}$/i.test(sha)) return null;
    return runGit(['cat-file', '-t', sha], { env: env(gitDir) }).then(
      (out) => out.trim(),
      () => null,
    );
  },

  /** `rev-parse --verify` of an expression (`<id>^{tree}`), or null. */
  async revParse(gitDir: string, expression: string): Promise<string | null> {
    if (expression.startsWith('-')) return null;
    return runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', expression], {
      env: env(gitDir),
    }).then(
      (out) => out.trim() || null,
      () => null,
    );
  },

  async blobSize(gitDir: string, sha: string): Promise<number> {
    return Number((await runGit(['cat-file', '-s', sha], { env: env(gitDir) })).trim());
  },

  /** The newest commit reachable from `commit` that touched `filePath`. */
  async lastCommit(gitDir: string, commit: string, filePath: string): Promise<LastCommit | null> {
    const out = await runGit(
      ['log', '-1', '--format=%H%x00%aI%x00%cI%x00%B', commit, '--', ...(filePath ? [filePath] : [])],
      { env: env(gitDir) },
    );
    const [sha, authorDate, committerDate, ...message] = out.split('\0');
    return sha
      ? { sha, authorDate: authorDate!, committerDate: committerDate!, message: message.join('\0') }
      : null;
  },

  /**
   * A commit that applies `changes` to `parent`'s tree (no work tree: blobs through `hash-object -w`,
   * the tree through a temporary index, `read-tree` + `update-index` + `write-tree`, then
   * `commit-tree`). Returns the new commit id; no ref moves.
   */
  async commitChanges(input: {
    gitDir: string;
    parent: string | null;
    changes: TreeChange[];
    message: string;
    author: Signature;
    committer: Signature;
  }): Promise<{ commit: string; tree: string; blobs: Map<string, string> }> {
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'devplane-index-'));
    const indexEnv = env(input.gitDir, { GIT_INDEX_FILE: path.join(scratch, 'index') });
    try {
      if (input.parent) await runGit(['read-tree', input.parent], { env: indexEnv });
      else await runGit(['read-tree', '--empty'], { env: indexEnv });
      const blobs = new Map<string, string>();
      const lines: string[] = [];
      for (const change of input.changes) {
        if ('remove' in change) {
          lines.push(`0 ${'0'.repeat(40)}\t${change.path}`);
        } else {
          const blob = (
            await runGit(['hash-object', '-w', '--stdin'], { env: indexEnv, input: change.content })
          ).trim();
          blobs.set(change.path, blob);
          lines.push(`100644 ${blob}\t${change.path}`);
        }
      }
      // `--index-info` takes `mode sha<TAB>path`; mode 0 removes the path.
      await runGit(['update-index', '-z', '--index-info'], {
        env: indexEnv,
        input: lines.map((line) => `${line}\0`).join(''),
      });
      const tree = (await runGit(['write-tree'], { env: indexEnv })).trim();
      const commit = (
        await runGit(['commit-tree', tree, ...(input.parent ? ['-p', input.parent] : []), '-F', '-'], {
          env: env(input.gitDir, {
            GIT_AUTHOR_NAME: input.author.name,
            GIT_AUTHOR_EMAIL: input.author.email,
            GIT_COMMITTER_NAME: input.committer.name,
            GIT_COMMITTER_EMAIL: input.committer.email,
            ...(input.author.date ? { GIT_AUTHOR_DATE: input.author.date } : {}),
            ...(input.committer.date ? { GIT_COMMITTER_DATE: input.committer.date } : {}),
          }),
          input: input.message.endsWith('\n') ? input.message : `${input.message}\n`,
        })
      ).trim();
      return { commit, tree, blobs };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};

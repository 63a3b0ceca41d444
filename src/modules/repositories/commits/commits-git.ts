import { GitCommandError, runGit } from '../git/run-git';

export interface CommitRecord {
  sha: string;
  tree: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  authorDate: string;
  committerName: string;
  committerEmail: string;
  committerDate: string;
  message: string;
}

export interface CommitFileChange {
  filename: string;
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied';
  additions: number;
  deletions: number;
}

export interface RefRecord {
  ref: string;
  /** The object the ref points at (a tag object for annotated tags). */
  sha: string;
  type: string;
}

const FORMAT = '--format=%x1e%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B';
const env = (gitDir: string) => ({ GIT_DIR: gitDir });

function parseCommits(out: string): CommitRecord[] {
  return out
    .split('\x1e')
    .slice(1)
    .map((record) => {
      const [sha, tree, parents, an, ae, ad, cn, ce, cd, ...message] = record.split('\0') as string[];
      return {
        sha: sha!,
        tree: tree!,
        parents: parents ? parents.split(' ').filter(Boolean) : [],
        authorName: an!,
        authorEmail: ae!,
        authorDate: ad!,
        committerName: cn!,
        committerEmail: ce!,
        committerDate: cd!,
        message: message.join('\0').replace(/\n$/, ''),
      };
    });
}

const STATUS: Record<string, CommitFileChange['status']> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  T: 'modified',
  R: 'renamed',
  C: 'copied',
};

/** History through the git CLI (Gitea's commit, compare, refs, trees and blobs routes). */
export const CommitsGit = {
  /** A page of `git log` from `start` (minus `exclude`), optionally limited to a path. */
  async log(
    gitDir: string,
    options: { start: string; exclude?: string[]; path?: string; skip: number; limit: number },
  ): Promise<CommitRecord[]> {
    const out = await runGit(
      [
        'log',
        FORMAT,
        `--skip=${options.skip}`,
        `--max-count=${options.limit}`,
        options.start,
        ...(options.exclude ?? []).map((sha) => `^${sha}`),
        '--',
        ...(options.path ? [options.path] : []),
      ],
      { env: env(gitDir) },
    );
    return parseCommits(out);
  },

  async count(
    gitDir: string,
    options: { start: string; exclude?: string[]; path?: string },
  ): Promise<number> {
    const out = await runGit(
      [
        'rev-list',
        '--count',
        options.start,
        ...(options.exclude ?? []).map((sha) => `^${sha}`),
        '--',
        ...(options.path ? [options.path] : []),
      ],
      { env: env(gitDir) },
    );
    return Number(out.trim());
  },

  async commit(gitDir: string, sha: string): Promise<CommitRecord | null> {
    return runGit(['log', '-1', '--no-walk', FORMAT, `${sha}^{commit}`, '--'], { env: env(gitDir) }).then(
      (out) => parseCommits(out)[0] ?? null,
      (error: unknown) => {
        if (error instanceof GitCommandError) return null;
        throw error;
      },
    );
  },

  /** The files each commit changes against its first parent (root commits: everything), keyed by commit. */
  async changes(gitDir: string, shas: string[]): Promise<Map<string, CommitFileChange[]>> {
    const found = new Map<string, CommitFileChange[]>();
    if (shas.length === 0) return found;
    const out = await runGit(
      [
        '-c',
        'core.quotePath=false',
        'diff-tree',
        '--stdin',
        '-r',
        '--root',
        '-m',
        '--first-parent',
        '--raw',
        '--numstat',
        '--no-renames',
      ],
      { env: env(gitDir), input: `${shas.join('\n')}\n` },
    );
    let current: CommitFileChange[] | undefined;
    const byPath = new Map<string, CommitFileChange>();
    for (const line of out.split('\n')) {
      if (/^[0-9a-f]{40,64}$/.test(line)) {
        current = [];
        byPath.clear();
        found.set(line, current);
      } else if (current && line.startsWith(':')) {
        const tab = line.indexOf('\t');
        const status = STATUS[line.slice(0, tab).split(' ')[4]?.[0] ?? 'M'] ?? 'modified';
        const change: CommitFileChange = {
          filename: line.slice(tab + 1),
          status,
          additions: 0,
          deletions: 0,
        };
        current.push(change);
        byPath.set(change.filename, change);
      } else if (current && /^(\d+|-)\t(\d+|-)\t/.test(line)) {
        const [added, deleted, ...name] = line.split('\t');
        const change = byPath.get(name.join('\t'));
        if (change) {
          change.additions = added === '-' ? 0 : Number(added);
          change.deletions = deleted === '-' ? 0 : Number(deleted);
        }
      }
    }
    for (const sha of shas) if (!found.has(sha)) found.set(sha, []);
    return found;
  },

  async refs(gitDir: string, prefix: string): Promise<RefRecord[]> {
    const out = await runGit(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)', prefix], {
      env: env(gitDir),
    });
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sha, type, ...ref] = line.split(' ');
        return { sha: sha!, type: type!, ref: ref.join(' ') };
      });
  },
};

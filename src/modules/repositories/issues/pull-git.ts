import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { BranchGit } from '../branches/branch-git';
import { GitCommandError, runGit } from '../git/run-git';

export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'] as const;
export type MergeStyle = (typeof MERGE_STYLES)[number];

export interface GitIdentity {
  name: string;
  email: string;
}

export interface DiffStat {
  additions: number;
  deletions: number;
  changedFiles: number;
  commits: number;
}

export type MergeCheck = { status: 'mergeable' | 'conflict' | 'empty'; mergeBase: string };

/** A merge that git refused: conflicts, a base that moved, or a head that cannot be fast-forwarded. */
export class MergeRefusedError extends Error {
  constructor(
    readonly reason: 'conflict' | 'base_moved' | 'not_fast_forward',
    message: string,
  ) {
    super(message);
  }
}

const git = (gitDir: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runGit(args, { env: { GIT_DIR: gitDir, ...env } });

function identityEnv(author: GitIdentity, committer: GitIdentity): NodeJS.ProcessEnv {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
  };
}

/**
 * The git side of pull requests, through the git CLI: the head commits are copied into the base
 * repository as `refs/pull/{index}/head` (from a fork with `git fetch`), mergeability is computed
 * without a work tree (`git merge-tree --write-tree`), and a merge runs in a temporary clone that
 * shares the base repository's objects and is pushed back as a fast-forward (so a base branch that
 * moved meanwhile refuses instead of losing commits).
 */
export const PullGit = {
  revParse(gitDir: string, ref: string): Promise<string | null> {
    return BranchGit.resolveCommit(gitDir, ref);
  },

  /** Copies the head branch into `refs/pull/{index}/head` of the base repository; returns its commit. */
  async syncHead(
    baseGitDir: string,
    headGitDir: string,
    headBranch: string,
    index: string,
  ): Promise<string | null> {
    const ref = `refs/pull/${index}/head`;
    if (path.resolve(baseGitDir) === path.resolve(headGitDir)) {
      const sha = await PullGit.revParse(baseGitDir, `refs/heads/${headBranch}`);
      if (sha) await git(baseGitDir, ['update-ref', ref, sha]);
      return sha;
    }
    try {
      await git(baseGitDir, [
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        headGitDir,
        `+refs/heads/${headBranch}:${ref}`,
      ]);
    } catch (error) {
      if (error instanceof GitCommandError) return null;
      throw error;
    }
    return PullGit.revParse(baseGitDir, ref);
  },

  /**
   * What the pull request changes: lines added and deleted and files changed between the merge base
   * and the head (`git diff --numstat`, binary files count as changed without lines), and its commits.
   */
  async diffStat(gitDir: string, mergeBase: string, headSha: string): Promise<DiffStat> {
    if (!mergeBase || !headSha) return { additions: 0, deletions: 0, changedFiles: 0, commits: 0 };
    const numstat = await git(gitDir, ['diff', '--numstat', '--no-renames', mergeBase, headSha]);
    const stat = { additions: 0, deletions: 0, changedFiles: 0, commits: 0 };
    for (const line of numstat.split('\n')) {
      const [added, deleted] = line.split('\t', 3);
      if (added === undefined || deleted === undefined) continue;
      stat.changedFiles++;
      stat.additions += Number.parseInt(added, 10) || 0;
      stat.deletions += Number.parseInt(deleted, 10) || 0;
    }
    const count = await git(gitDir, ['rev-list', '--count', `${mergeBase}..${headSha}`]);
    stat.commits = Number.parseInt(count.trim(), 10) || 0;
    return stat;
  },

  async check(gitDir: string, baseSha: string, headSha: string): Promise<MergeCheck> {
    const mergeBase = (await git(gitDir, ['merge-base', baseSha, headSha]).catch(() => '')).trim();
    if (mergeBase === headSha) return { status: 'empty', mergeBase };
    try {
      await git(gitDir, ['merge-tree', '--write-tree', '--no-messages', baseSha, headSha]);
      return { status: 'mergeable', mergeBase };
    } catch (error) {
      if (error instanceof GitCommandError && error.code === 1) return { status: 'conflict', mergeBase };
      throw error;
    }
  },

  /**
   * Merges `headSha` into `baseBranch` in the given style and moves the branch; returns the new
   * branch commit. `message` is the merge or squash commit message.
   */
  async merge(input: {
    gitDir: string;
    tmpRoot: string;
    baseBranch: string;
    baseSha: string;
    headSha: string;
    style: MergeStyle;
    message: string;
    merger: GitIdentity;
    /** Author of a squash commit (the pull request's poster). */
    squashAuthor: GitIdentity;
  }): Promise<string> {
    const work = await mkdtemp(path.join(input.tmpRoot, 'merge-'));
    const env = { GIT_DIR: path.join(work, '.git'), GIT_WORK_TREE: work };
    const run = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      runGit(args, { cwd: work, env: { ...env, ...extra } });
    const asMerger = identityEnv(input.merger, input.merger);
    try {
      await runGit(['clone', '--quiet', '--shared', '--no-checkout', input.gitDir, work]);
      await run(['fetch', '--quiet', '--no-tags', 'origin', input.headSha]);
      await run(['checkout', '--quiet', '-B', 'base', input.baseSha]);
      try {
        switch (input.style) {
          case 'merge':
            await run(
              ['merge', '--quiet', '--no-ff', '--no-edit', '-m', input.message, input.headSha],
              asMerger,
            );
            break;
          case 'squash':
            await run(['merge', '--quiet', '--squash', input.headSha], asMerger);
            await run(
              ['commit', '--quiet', '--allow-empty', '-m', input.message],
              identityEnv(input.squashAuthor, input.merger),
            );
            break;
          case 'fast-forward-only':
            await run(['merge', '--quiet', '--ff-only', input.headSha], asMerger).catch((error: unknown) => {
              throw error instanceof GitCommandError
                ? new MergeRefusedError('not_fast_forward', 'head is not a fast-forward of the base branch')
                : error;
            });
            break;
          case 'rebase':
          case 'rebase-merge':
            await run(['checkout', '--quiet', '-B', 'head', input.headSha]);
            await run(['rebase', '--quiet', 'base'], asMerger);
            if (input.style === 'rebase') {
              await run(['checkout', '--quiet', 'base']);
              await run(['merge', '--quiet', '--ff-only', 'head'], asMerger);
            } else {
              await run(['checkout', '--quiet', 'base']);
              await run(['merge', '--quiet', '--no-ff', '--no-edit', '-m', input.message, 'head'], asMerger);
            }
            break;
        }
      } catch (error) {
        if (error instanceof GitCommandError) throw new MergeRefusedError('conflict', 'merge conflict');
        throw error;
      }
      const result = (await run(['rev-parse', 'HEAD'])).trim();
      try {
        // Compare-and-swap on the branch: refused when it moved since baseSha was read.
        await run([
          'push',
          '--quiet',
          'origin',
          `${result}:refs/heads/${input.baseBranch}`,
          `--force-with-lease=refs/heads/${input.baseBranch}:${input.baseSha}`,
        ]);
      } catch (error) {
        if (error instanceof GitCommandError)
          throw new MergeRefusedError('base_moved', 'the base branch changed during the merge; try again');
        throw error;
      }
      return result;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },
};

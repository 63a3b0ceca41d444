import { GitCommandError, runGit } from '../git/run-git';

export const ZERO_ID = '0000000000000000000000000000000000000000';
export const isZeroId = (id: string): boolean => /^0+$/.test(id);

/** Where git finds objects: the repository, or a push's quarantine (its objects are not in the repository yet). */
export interface GitObjects {
  gitDir: string;
  objectDirectory?: string | null;
  alternateObjectDirectories?: string | null;
}

function envOf(objects: GitObjects): NodeJS.ProcessEnv {
  return {
    GIT_DIR: objects.gitDir,
    ...(objects.objectDirectory ? { GIT_OBJECT_DIRECTORY: objects.objectDirectory } : {}),
    ...(objects.alternateObjectDirectories
      ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: objects.alternateObjectDirectories }
      : {}),
  };
}

const git = (objects: GitObjects | string, args: string[], input?: string) =>
  runGit(args, { env: envOf(typeof objects === 'string' ? { gitDir: objects } : objects), input });

export interface BranchTip {
  name: string;
  commitId: string;
  /** Committer time, seconds since the epoch. */
  commitTime: number;
}

export interface CommitDetails {
  id: string;
  message: string;
  authorName: string;
  authorEmail: string;
  authorDate: string;
  committerName: string;
  committerEmail: string;
  committerDate: string;
}

/** The git side of branches, through the git CLI. */
export const BranchGit = {
  /**
   * Every branch, newest commit first, then by name (Gitea's order). The commit times are read once
   * per distinct commit (`for-each-ref --sort=committerdate` parses one commit per ref: 16x slower on
   * 10,000 branches that share few commits) and the sort is done here.
   */
  async list(gitDir: string): Promise<BranchTip[]> {
    const out = await git(gitDir, [
      'for-each-ref',
      '--format=%(objectname) %(refname:strip=2)',
      'refs/heads/',
    ]);
    const tips: BranchTip[] = [];
    for (const line of out.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0)
        tips.push({ commitId: line.slice(0, space), name: line.slice(space + 1), commitTime: 0 });
    }
    const ids = [...new Set(tips.map((tip) => tip.commitId))];
    const times = new Map<string, number>();
    if (ids.length > 0) {
      const log = await git(
        gitDir,
        ['log', '--no-walk=unsorted', '--stdin', '--format=%H %ct'],
        `${ids.join('\n')}\n`,
      );
      for (const line of log.split('\n')) {
        const [id, time] = line.split(' ');
        if (id && time) times.set(id, Number(time));
      }
    }
    for (const tip of tips) tip.commitTime = times.get(tip.commitId) ?? 0;
    return tips.sort(
      (a, b) => b.commitTime - a.commitTime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  },

  async packRefs(gitDir: string): Promise<void> {
    await git(gitDir, ['pack-refs', '--all', '--prune']);
  },

  async tip(gitDir: string, branch: string): Promise<string | null> {
    return BranchGit.resolveCommit(gitDir, `refs/heads/${branch}`);
  },

  /** A commit-ish (branch, tag, full ref, sha) to its commit id, or null. */
  async resolveCommit(objects: GitObjects | string, revision: string): Promise<string | null> {
    if (revision.startsWith('-')) return null;
    return git(objects, [
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${revision}^{commit}`,
    ]).then(
      (out) => out.trim() || null,
      () => null,
    );
  },

  async refExists(gitDir: string, ref: string): Promise<boolean> {
    return git(gitDir, ['show-ref', '--verify', '--quiet', ref]).then(
      () => true,
      () => false,
    );
  },

  /** Branch names equal to `name`, a prefix of it (`a` for `a/b`) or under it (`a/b` for `a`). */
  async conflictingBranches(gitDir: string, name: string): Promise<string[]> {
    const names = (await git(gitDir, ['for-each-ref', '--format=%(refname:strip=2)', 'refs/heads/']))
      .split('\n')
      .filter(Boolean);
    return names.filter(
      (other) => other === name || name.startsWith(`${other}/`) || other.startsWith(`${name}/`),
    );
  },

  async isAncestor(objects: GitObjects | string, ancestor: string, descendant: string): Promise<boolean> {
    return git(objects, ['merge-base', '--is-ancestor', ancestor, descendant]).then(
      () => true,
      (error: unknown) => {
        if (error instanceof GitCommandError && error.code === 1) return false;
        throw error;
      },
    );
  },

  /** The best common ancestor of two commits, or null when they share no history. */
  async mergeBase(objects: GitObjects | string, a: string, b: string): Promise<string | null> {
    return git(objects, ['merge-base', a, b]).then(
      (out) => out.trim() || null,
      (error: unknown) => {
        if (error instanceof GitCommandError && error.code === 1) return null;
        throw error;
      },
    );
  },

  /** Commit details for the given ids (one git process), keyed by id. */
  async commits(gitDir: string, ids: string[]): Promise<Map<string, CommitDetails>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, CommitDetails>();
    if (unique.length === 0) return found;
    const out = await git(
      gitDir,
      [
        'log',
        '--no-walk=unsorted',
        '--stdin',
        '--format=%H%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e',
      ],
      `${unique.join('\n')}\n`,
    );
    for (const record of out.split('\x1e')) {
      const fields = record.replace(/^\n/, '').split('\x00');
      if (fields.length < 8) continue;
      const [id, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message] =
        fields as [string, string, string, string, string, string, string, string];
      found.set(id, {
        id,
        authorName,
        authorEmail,
        authorDate,
        committerName,
        committerEmail,
        committerDate,
        message,
      });
    }
    return found;
  },

  /**
   * Moves refs in one transaction (all or none), each compare-and-swap against its expected old id
   * (the zero id: must not exist yet). False when a ref was not at its expected id.
   */
  async updateRefs(
    gitDir: string,
    updates: { ref: string; oldId: string; newId: string }[],
  ): Promise<boolean> {
    const lines = updates.map(({ ref, oldId, newId }) =>
      isZeroId(newId)
        ? `delete ${ref} ${oldId}`
        : isZeroId(oldId)
          ? `create ${ref} ${newId}`
          : `update ${ref} ${newId} ${oldId}`,
    );
    return git(gitDir, ['update-ref', '--stdin'], `${lines.join('\n')}\n`).then(
      () => true,
      (error: unknown) => {
        if (error instanceof GitCommandError) return false;
        throw error;
      },
    );
  },

  /** Paths a ref update changes (`git diff --name-only old new`). */
  async changedFiles(objects: GitObjects, oldId: string, newId: string): Promise<string[]> {
    const out = await git(objects, ['diff', '--name-only', '-z', '--no-renames', oldId, newId]);
    return out.split('\0').filter(Boolean);
  },

  /** Commits a ref update brings in: `old..new`, or for a new branch those no existing ref holds. */
  async newCommits(objects: GitObjects, oldId: string, newId: string): Promise<string[]> {
    const args = isZeroId(oldId)
      ? ['rev-list', newId, '--not', '--branches', '--tags']
      : ['rev-list', `${oldId}..${newId}`];
    return (await git(objects, args)).split('\n').filter(Boolean);
  },

  /** Of the given commits, those that carry no signature (a `gpgsig` / `gpgsig-sha256` header). */
  async unsignedCommits(objects: GitObjects, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const out = await git(
      objects,
      ['rev-list', '--no-walk=unsorted', '--stdin', '--format=raw'],
      `${ids.join('\n')}\n`,
    );
    const unsigned: string[] = [];
    // Records start with `commit <id>`; the message lines are indented, so this cannot match inside one.
    for (const record of out.split(/^(?=commit [0-9a-f]{40,64}$)/m)) {
      const id = /^commit ([0-9a-f]+)/.exec(record)?.[1];
      if (!id) continue;
      const headerEnd = record.indexOf('\n\n');
      const headers = headerEnd < 0 ? record : record.slice(0, headerEnd);
      if (!/^gpgsig(-sha256)? /m.test(headers)) unsigned.push(id);
    }
    return unsigned;
  },

  /** A merge of `theirs` into `ours` written without a work tree; the conflicting paths when it cannot be. */
  async mergeTree(
    gitDir: string,
    ours: string,
    theirs: string,
  ): Promise<{ tree: string } | { conflicts: string[] }> {
    try {
      const out = await git(gitDir, [
        'merge-tree',
        '--write-tree',
        '--name-only',
        '--no-messages',
        ours,
        theirs,
      ]);
      return { tree: out.split('\n')[0]!.trim() };
    } catch (error) {
      if (error instanceof GitCommandError && error.code === 1) {
        // stdout: the tree id, then the conflicted paths.
        return { conflicts: [...new Set(error.stdout.split('\n').slice(1).filter(Boolean))] };
      }
      throw error;
    }
  },

  async commitTree(
    gitDir: string,
    tree: string,
    parents: string[],
    message: string,
    identity: { name: string; email: string },
  ): Promise<string> {
    const out = await runGit(
      ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent]), '-m', message],
      {
        env: {
          GIT_DIR: gitDir,
          GIT_AUTHOR_NAME: identity.name,
          GIT_AUTHOR_EMAIL: identity.email,
          GIT_COMMITTER_NAME: identity.name,
          GIT_COMMITTER_EMAIL: identity.email,
        },
      },
    );
    return out.trim();
  },

  /** Copies a branch of another repository's objects into this one (`git fetch` into a ref). */
  async fetchInto(gitDir: string, sourceGitDir: string, sourceRef: string, targetRef: string): Promise<void> {
    await git(gitDir, [
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      sourceGitDir,
      `+${sourceRef}:${targetRef}`,
    ]);
  },
};

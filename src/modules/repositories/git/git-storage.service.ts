import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { hookScript } from './git-hooks';
import { runGit } from './run-git';
import { removeStaleGitLeftovers } from './stale-quarantines';

/** With a shared repositories directory (PostgreSQL: maybe several instances), leftovers this old are stale. */
const SHARED_LEFTOVER_GRACE_MS = 60 * 60 * 1000;

export interface InitOptions {
  defaultBranch: string;
  /** A fork: a bare clone of this repository directory instead of an empty repository. */
  cloneFrom?: string;
  /** A first commit with a README (Gitea's auto_init). */
  readme?: { content: string; authorName: string; authorEmail: string };
  /** A remote to clone (migrations): `--mirror` keeps every ref as the remote has it; env carries git config (pin, credentials). */
  cloneRemote?: { url: string; mirror: boolean; env: NodeJS.ProcessEnv };
}

/** A directory move that can be undone when the database transaction around it fails. */
export interface StagedMove {
  /** Makes the move final (after commit). */
  commit(): Promise<void>;
  /** Puts things back (the transaction failed). */
  rollback(): Promise<void>;
}

/**
 * The one place that knows where repositories live on disk:
 * `DATA_DIR/repositories/<lower owner>/<lower name>.git`, bare, created through the git CLI.
 * New repositories are prepared under `.tmp/` and moved into place; deletions are moved to
 * `.trash/` first; so each step can be undone when the database transaction around it fails.
 */
@Injectable()
export class GitStorage implements OnModuleInit {
  readonly root: string;
  readonly hooksPath: string;
  private readonly logger = new Logger('GitStorage');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.root = path.join(config.dataDir, 'repositories');
    this.hooksPath = path.join(config.dataDir, 'git-hooks');
  }

  async onModuleInit(): Promise<void> {
    await mkdir(path.join(this.root, '.tmp'), { recursive: true, mode: 0o700 });
    await mkdir(path.join(this.root, '.trash'), { recursive: true, mode: 0o700 });
    await mkdir(this.hooksPath, { recursive: true, mode: 0o700 });
    // Written at every start so the hooks run the current node binary.
    for (const hook of ['pre-receive', 'post-receive'] as const) {
      const file = path.join(this.hooksPath, hook);
      const content = hookScript(hook, process.execPath);
      const current = await readFile(file, 'utf8').catch(() => '');
      if (current !== content) await writeFile(file, content, { mode: 0o700 });
      await chmod(file, 0o700);
    }
    // What a killed server left (issue #46.5): quarantines of unfinished pushes, temporary packs,
    // repositories prepared but never moved into place. On the embedded database this is the only
    // instance; otherwise another may share the directory and only old leftovers go.
    const { removed } = await removeStaleGitLeftovers(this.root, {
      graceMs: this.config.databaseUrl === undefined ? 0 : SHARED_LEFTOVER_GRACE_MS,
    });
    if (removed.length > 0)
      this.logger.warn(`removed ${removed.length} leftover(s) of interrupted pushes or creations`);
  }

  pathOf(ownerName: string, repoName: string): string {
    return path.join(this.root, ownerName.toLowerCase(), `${repoName.toLowerCase()}.git`);
  }

  async exists(ownerName: string, repoName: string): Promise<boolean> {
    return stat(this.pathOf(ownerName, repoName)).then(
      (info) => info.isDirectory(),
      () => false,
    );
  }

  /** Prepares a bare repository in a temporary place; `commit()` moves it to its final path. */
  async prepare(ownerName: string, repoName: string, options: InitOptions): Promise<StagedMove> {
    const temporary = path.join(this.root, '.tmp', `${randomUUID()}.git`);
    const target = this.pathOf(ownerName, repoName);
    try {
      if (options.cloneRemote) {
        const { url, mirror, env } = options.cloneRemote;
        await runGit(['clone', mirror ? '--mirror' : '--bare', '--quiet', '--', url, temporary], { env });
        await runGit(['remote', 'remove', 'origin'], { env: { GIT_DIR: temporary } });
      } else if (options.cloneFrom) {
        await runGit(['clone', '--bare', '--quiet', '--no-hardlinks', options.cloneFrom, temporary]);
        await runGit(['remote', 'remove', 'origin'], { env: { GIT_DIR: temporary } });
      } else {
        await runGit(['init', '--bare', '--quiet', `--initial-branch=${options.defaultBranch}`, temporary]);
      }
      await runGit(['config', 'receive.advertisePushOptions', 'true'], { cwd: temporary });
      if (options.readme) await this.commitReadme(temporary, options.defaultBranch, options.readme);
    } catch (error) {
      await rm(temporary, { recursive: true, force: true });
      throw error;
    }
    let moved = false;
    return {
      commit: async () => {
        await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
        await rename(temporary, target);
        moved = true;
      },
      rollback: async () => {
        await rm(moved ? target : temporary, { recursive: true, force: true });
      },
    };
  }

  private async commitReadme(
    gitDir: string,
    branch: string,
    readme: NonNullable<InitOptions['readme']>,
  ): Promise<void> {
    const env = {
      GIT_DIR: gitDir,
      GIT_AUTHOR_NAME: readme.authorName,
      GIT_AUTHOR_EMAIL: readme.authorEmail,
      GIT_COMMITTER_NAME: readme.authorName,
      GIT_COMMITTER_EMAIL: readme.authorEmail,
    };
    const blob = (await runGit(['hash-object', '-w', '--stdin'], { env, input: readme.content })).trim();
    const tree = (await runGit(['mktree'], { env, input: `100644 blob ${blob}\tREADME.md\n` })).trim();
    const commit = (await runGit(['commit-tree', tree, '-m', 'Initial commit'], { env })).trim();
    await runGit(['update-ref', `refs/heads/${branch}`, commit], { env });
  }

  /** Moves a repository directory (rename or transfer); undone by `rollback()`. */
  async stageMove(
    from: { owner: string; name: string },
    to: { owner: string; name: string },
  ): Promise<StagedMove> {
    const source = this.pathOf(from.owner, from.name);
    const target = this.pathOf(to.owner, to.name);
    if (source === target) return { commit: async () => undefined, rollback: async () => undefined };
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    await rename(source, target);
    return {
      commit: async () => undefined,
      rollback: async () => {
        await rename(target, source);
      },
    };
  }

  /** Moves a repository to the trash; `commit()` deletes it for good, `rollback()` restores it. */
  async stageDelete(ownerName: string, repoName: string): Promise<StagedMove> {
    const source = this.pathOf(ownerName, repoName);
    const trash = path.join(this.root, '.trash', `${randomUUID()}.git`);
    const present = await this.exists(ownerName, repoName);
    if (present) await rename(source, trash);
    return {
      commit: async () => {
        if (present) await rm(trash, { recursive: true, force: true });
      },
      rollback: async () => {
        if (present) await rename(trash, source);
      },
    };
  }

  /** Branch names and their commits (`refs/heads/*`). */
  async branches(gitDir: string): Promise<{ name: string; commitId: string }[]> {
    const out = await runGit(['for-each-ref', '--format=%(objectname) %(refname:strip=2)', 'refs/heads/'], {
      env: { GIT_DIR: gitDir },
    });
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const space = line.indexOf(' ');
        return { commitId: line.slice(0, space), name: line.slice(space + 1) };
      });
  }

  /** Points HEAD at a branch (the repository's default branch). */
  async setHead(gitDir: string, branch: string): Promise<void> {
    await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { env: { GIT_DIR: gitDir } });
  }

  /** Disk use in KiB (Gitea's `size`). */
  async sizeKib(gitDir: string): Promise<number> {
    const out = await runGit(['count-objects', '-v'], { env: { GIT_DIR: gitDir } });
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
    return field('size') + field('size-pack');
  }
}

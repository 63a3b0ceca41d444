import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { ConflictError, InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import { ContentDeletionHooks } from '../content-deletion-hooks';
import type { Repository } from '../entities/repository.entity';
import { GitStorage } from '../git/git-storage.service';
import { GitCommandError, runGit } from '../git/run-git';
import { PullGit } from '../issues/pull-git';
import { RefChangesService } from '../ref-changes.service';
import { isValidBranchName } from '../repository-names';
import type { Release } from './release.entity';
import { ReleasesRepository } from './releases.repository';

export interface CreateReleaseInput {
  tagName: string;
  target?: string;
  title?: string;
  note?: string;
  draft?: boolean;
  prerelease?: boolean;
}

export type EditReleaseInput = Partial<CreateReleaseInput>;

export interface ReleaseListQuery {
  /** Drafts are listed only for callers who may write. */
  includeDrafts: boolean;
  draft?: boolean;
  prerelease?: boolean;
  limit: number;
  offset: number;
}

export function releaseNotFound(): NotFoundError {
  return new NotFoundError('release does not exist', { code: 'RELEASE_NOT_FOUND' });
}

const ZERO = '0000000000000000000000000000000000000000';

/**
 * Releases. A published release has a git tag: the existing tag of that name, or a lightweight tag
 * created at `target_commitish` (default: the default branch) when it is published. A draft has no
 * tag and is invisible (404) to callers who may not write. Deleting a release keeps its tag, as
 * Gitea's API does.
 */
@Injectable()
export class ReleasesService {
  constructor(
    private readonly releases: ReleasesRepository,
    private readonly storage: GitStorage,
    private readonly transactions: TransactionRunner,
    private readonly deletionHooks: ContentDeletionHooks,
    private readonly refChanges: RefChangesService,
  ) {}

  private gitDir(repo: Repository): string {
    return this.storage.pathOf(repo.owner.name, repo.name);
  }

  /** The tag's commit, creating the tag at `target` when it does not exist; returns what to undo. */
  private async ensureTag(
    repo: Repository,
    tagName: string,
    target: string,
  ): Promise<{ commitId: string; created: boolean }> {
    const gitDir = this.gitDir(repo);
    const existing = await PullGit.revParse(gitDir, `refs/tags/${tagName}`);
    if (existing) return { commitId: existing, created: false };
    const commitId =
      (await PullGit.revParse(gitDir, `refs/heads/${target}`)) ??
      (/^[0-9a-f]{4,64}$/i.test(target) ? await PullGit.revParse(gitDir, target) : null);
    if (!commitId)
      throw new NotFoundError(`target couldn't be found: ${target}`, { code: 'RELEASE_TARGET_NOT_FOUND' });
    try {
      await runGit(['update-ref', `refs/tags/${tagName}`, commitId, ZERO], { env: { GIT_DIR: gitDir } });
    } catch (error) {
      if (error instanceof GitCommandError)
        throw new ConflictError(`tag already exists [name: ${tagName}]`, { code: 'TAG_EXISTS' });
      throw error;
    }
    return { commitId, created: true };
  }

  private validateTag(tagName: string): void {
    if (!tagName || !isValidBranchName(tagName))
      throw new InvalidError('[TagName]: GitRefName', { code: 'RELEASE_TAG_NAME' });
  }

  async create(repo: Repository, actor: User, input: CreateReleaseInput): Promise<Release> {
    this.validateTag(input.tagName);
    if (repo.isEmpty) throw new InvalidError('repo is empty', { code: 'REPOSITORY_EMPTY' });
    if (await this.releases.tagExists(repo.id, input.tagName.toLowerCase())) {
      throw new ConflictError(`release tag already exist [tag_name: ${input.tagName}]`, {
        code: 'RELEASE_EXISTS',
      });
    }
    const target = input.target || repo.defaultBranch;
    return this.transactions
      .run(async (tx) => {
        let commitId = '';
        if (!input.draft) {
          const tag = await this.ensureTag(repo, input.tagName, target);
          commitId = tag.commitId;
          if (tag.created) {
            tx.onRollback(() =>
              runGit(['update-ref', '-d', `refs/tags/${input.tagName}`], {
                env: { GIT_DIR: this.gitDir(repo) },
              }).then(() => undefined),
            );
            // The new tag is a ref change like a pushed one: recorded with the release (its reactions,
            // `tag.created` among them, run from the durable push job).
            await this.refChanges.record(
              {
                repo,
                actor,
                source: 'api',
                request: null,
                refs: [{ ref: `refs/tags/${input.tagName}`, oldId: ZERO, newId: commitId }],
              },
              tx,
            );
          }
        }
        const now = new Date();
        const release = await this.releases.insert(tx.manager, {
          repositoryId: repo.id,
          publisherId: actor.id,
          tagName: input.tagName,
          lowerTagName: input.tagName.toLowerCase(),
          target,
          commitId,
          title: input.title ?? '',
          note: input.note ?? '',
          isDraft: input.draft ?? false,
          isPrerelease: input.prerelease ?? false,
          publishedAt: input.draft ? null : now,
        });
        if (!input.draft)
          tx.emitDurable('release.published', {
            repositoryId: repo.id,
            releaseId: release.id,
            tag: release.tagName,
            actorId: actor.id,
          });
        release.publisher = actor;
        return release;
      })
      .catch((error: unknown) => {
        if ((error as { driverError?: { code?: string } }).driverError?.code === '23505') {
          throw new ConflictError(`release tag already exist [tag_name: ${input.tagName}]`, {
            code: 'RELEASE_EXISTS',
          });
        }
        throw error;
      });
  }

  async list(repo: Repository, query: ReleaseListQuery): Promise<{ items: Release[]; total: number }> {
    const [items, total] = await this.releases.list({ repositoryId: repo.id, ...query });
    return { items, total };
  }

  /** A release of this repository; drafts only for callers who may write (else 404). */
  async require(repo: Repository, id: string, mayWrite: boolean): Promise<Release> {
    const release = /^\d{1,18}$/.test(id) ? await this.releases.findById(repo.id, id) : null;
    if (!release || (release.isDraft && !mayWrite)) throw releaseNotFound();
    return release;
  }

  async requireByTag(repo: Repository, tag: string, mayWrite: boolean): Promise<Release> {
    const release = await this.releases.findByTag(repo.id, tag.toLowerCase());
    if (!release || (release.isDraft && !mayWrite)) throw releaseNotFound();
    return release;
  }

  /** The newest published release that is not a pre-release. */
  async latest(repo: Repository): Promise<Release> {
    const release = await this.releases.latest(repo.id);
    if (!release) throw releaseNotFound();
    return release;
  }

  async edit(repo: Repository, release: Release, actor: User, input: EditReleaseInput): Promise<Release> {
    const tagName = input.tagName || release.tagName;
    if (input.tagName) this.validateTag(input.tagName);
    if (
      tagName.toLowerCase() !== release.lowerTagName &&
      (await this.releases.tagExists(repo.id, tagName.toLowerCase()))
    ) {
      throw new ConflictError(`release tag already exist [tag_name: ${tagName}]`, { code: 'RELEASE_EXISTS' });
    }
    const draft = input.draft ?? release.isDraft;
    const target = input.target || release.target || repo.defaultBranch;
    return this.transactions.run(async (tx) => {
      const changes: Partial<Release> = {
        tagName,
        lowerTagName: tagName.toLowerCase(),
        target,
        title: input.title ?? release.title,
        note: input.note ?? release.note,
        isDraft: draft,
        isPrerelease: input.prerelease ?? release.isPrerelease,
      };
      const publishing = !draft && (release.isDraft || tagName !== release.tagName);
      if (publishing) {
        if (repo.isEmpty) throw new InvalidError('repo is empty', { code: 'REPOSITORY_EMPTY' });
        const tag = await this.ensureTag(repo, tagName, target);
        changes.commitId = tag.commitId;
        if (tag.created) {
          tx.onRollback(() =>
            runGit(['update-ref', '-d', `refs/tags/${tagName}`], {
              env: { GIT_DIR: this.gitDir(repo) },
            }).then(() => undefined),
          );
          await this.refChanges.record(
            {
              repo,
              actor,
              source: 'api',
              request: null,
              refs: [{ ref: `refs/tags/${tagName}`, oldId: ZERO, newId: tag.commitId }],
            },
            tx,
          );
        }
        if (release.isDraft) changes.publishedAt = new Date();
        tx.emitDurable('release.published', {
          repositoryId: repo.id,
          releaseId: release.id,
          tag: tagName,
          actorId: actor.id,
        });
      }
      return this.releases.update(tx.manager, release.id, changes);
    });
  }

  async delete(repo: Repository, release: Release, actor: User): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.deletionHooks.run(tx, { kind: 'release', id: release.id });
      await this.releases.delete(tx.manager, release.id);
      tx.emitDurable('release.deleted', {
        repositoryId: repo.id,
        releaseId: release.id,
        tag: release.tagName,
        actorId: actor.id,
      });
    });
  }
}

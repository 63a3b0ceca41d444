import { IdentityDirectory } from '../identity/identity-directory.service';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import { OrganizationsService } from '../identity/organizations.service';
import { UsersService } from '../identity/users.service';
import type { Repository } from './entities/repository.entity';
import {
  RepositoriesRepository,
  type RepositoryReach,
  type RepositoryVisibility,
} from './repositories.repository';
import { ContentDeletionHooks } from './content-deletion-hooks';
import { LfsRepository } from './lfs/lfs.repository';
import { GitStorage, type StagedMove } from './git/git-storage.service';
import { GitCommandError, runGit } from './git/run-git';
import { redactUrlIn } from '../../platform/net/safe-url';
import { isValidBranchName, repositoryNameProblem } from './repository-names';
import { repositoryNotFound } from './repository-permissions.service';

export interface CreateRepositoryInput {
  name: string;
  description?: string;
  private?: boolean;
  autoInit?: boolean;
  defaultBranch?: string;
}

export interface EditRepositoryInput {
  name?: string;
  description?: string;
  website?: string;
  private?: boolean;
  archived?: boolean;
  defaultBranch?: string;
}

export interface RepositoryListQuery {
  offset: number;
  limit: number;
}

export interface SearchRepositoriesQuery extends RepositoryListQuery {
  q?: string;
  ownerId?: string;
  /** Only private (true) or only public (false) repositories. */
  isPrivate?: boolean;
  sort: 'alpha' | 'created' | 'updated' | 'size' | 'id';
  order: 'asc' | 'desc';
}

/** Where a request for `{owner}/{repo}` lands: the repository, or the new path of a renamed one. */
export type Resolved = { repo: Repository; owner: User } | { redirectTo: { owner: string; name: string } };

function uniqueViolation(error: unknown): boolean {
  return (
    (error as { code?: string }).code === '23505' ||
    (error as { driverError?: { code?: string } }).driverError?.code === '23505'
  );
}

const REPO_EXISTS = 'The repository with the same name already exists.';

/** Repositories: the rows and their bare repositories on disk, kept in step. */
@Injectable()
export class RepositoriesService {
  constructor(
    private readonly repos: RepositoriesRepository,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly storage: GitStorage,
    private readonly transactions: TransactionRunner,
    private readonly deletionHooks: ContentDeletionHooks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: IdentityDirectory,
    private readonly lfsObjects: LfsRepository,
  ) {}

  gitDir(owner: User, repo: Repository): string {
    return this.storage.pathOf(owner.name, repo.name);
  }

  /** `{owner}/{repo}` of a path: the repository, a redirect for a renamed one, or 404 (unknown owner: Gitea's text). */
  async resolve(ownerName: string, repoName: string): Promise<Resolved> {
    const owner = await this.users.findAccountByName(ownerName);
    if (!owner)
      throw new NotFoundError('GetUserByName', {
        code: 'USER_NOT_FOUND',
        detail: `user does not exist [uid: 0, name: ${ownerName}]`,
      });
    const repo = await this.repos.findByName(owner.id, repoName.toLowerCase());
    if (repo) return { repo, owner };
    const redirect = await this.repos.findRedirect(owner.id, repoName.toLowerCase());
    if (redirect)
      return { redirectTo: { owner: redirect.repository.owner.name, name: redirect.repository.name } };
    throw repositoryNotFound();
  }

  async findById(id: string): Promise<Repository | null> {
    return this.repos.findById(id);
  }

  /** Gitea's CreateRepository for a user (`POST /user/repos`) or an organization (`POST /orgs/{org}/repos`). */
  async create(actor: User, owner: User, input: CreateRepositoryInput): Promise<Repository> {
    const problem = repositoryNameProblem(input.name);
    if (problem) throw new InvalidError(problem.text, { code: 'REPOSITORY_NAME' });
    const defaultBranch = input.defaultBranch || 'main';
    if (!isValidBranchName(defaultBranch))
      throw new InvalidError('[DefaultBranch]: GitRefName', { code: 'DEFAULT_BRANCH' });
    if (owner.type === 'organization') await this.assertMayCreateIn(actor, owner);
    if (await this.repos.nameTaken(owner.id, input.name.toLowerCase())) {
      throw new ConflictError(REPO_EXISTS, { code: 'REPOSITORY_EXISTS' });
    }
    const staged = await this.storage.prepare(owner.name, input.name, {
      defaultBranch,
      readme: input.autoInit
        ? {
            content: `# ${input.name}\n\n${input.description ?? ''}`.trimEnd() + '\n',
            authorName: actor.fullName || actor.name,
            authorEmail: actor.email || `${actor.lowerName}@noreply.localhost`,
          }
        : undefined,
    });
    const id = await this.withStaged([staged], () =>
      this.transactions.run(async (tx) => {
        // The name may have been taken by an old name of a renamed repository: the new one wins.
        const row = await this.repos.insert(tx.manager, {
          ownerId: owner.id,
          name: input.name,
          lowerName: input.name.toLowerCase(),
          description: input.description ?? '',
          isPrivate: input.private === true,
          isEmpty: !input.autoInit,
          defaultBranch,
        });
        await staged.commit();
        tx.emit('repository.created', {
          repositoryId: row.id,
          ownerId: owner.id,
          name: row.name,
          actorId: actor.id,
        });
        return row.id;
      }),
    ).catch((error: unknown) => {
      if (uniqueViolation(error)) throw new ConflictError(REPO_EXISTS, { code: 'REPOSITORY_EXISTS' });
      throw error;
    });
    return (await this.findById(id))!;
  }

  /** Gitea's fork (`POST /repos/{o}/{r}/forks`): a bare clone under the caller or an organization. */
  async fork(actor: User, source: Repository, target: User, name?: string): Promise<Repository> {
    const forkName = name ?? source.name;
    const problem = repositoryNameProblem(forkName);
    if (problem) throw new InvalidError(problem.text, { code: 'REPOSITORY_NAME' });
    if (target.type === 'organization') await this.assertMayCreateIn(actor, target);
    if (await this.repos.hasFork(target.id, source.id)) {
      throw new ConflictError('repository is already forked by user', { code: 'FORK_EXISTS' });
    }
    if (await this.repos.nameTaken(target.id, forkName.toLowerCase())) {
      throw new ConflictError(REPO_EXISTS, { code: 'REPOSITORY_EXISTS' });
    }
    const staged = await this.storage.prepare(target.name, forkName, {
      defaultBranch: source.defaultBranch,
      cloneFrom: this.storage.pathOf(source.owner.name, source.name),
    });
    const id = await this.withStaged([staged], () =>
      this.transactions.run(async (tx) => {
        const row = await this.repos.insert(tx.manager, {
          ownerId: target.id,
          name: forkName,
          lowerName: forkName.toLowerCase(),
          description: source.description,
          website: source.website,
          isPrivate: source.isPrivate,
          isEmpty: source.isEmpty,
          defaultBranch: source.defaultBranch,
          forkId: source.id,
          sizeKib: source.sizeKib,
        });
        await staged.commit();
        tx.emit('repository.created', {
          repositoryId: row.id,
          ownerId: target.id,
          name: row.name,
          actorId: actor.id,
        });
        return row.id;
      }),
    ).catch((error: unknown) => {
      if (uniqueViolation(error)) throw new ConflictError(REPO_EXISTS, { code: 'REPOSITORY_EXISTS' });
      throw error;
    });
    return (await this.findById(id))!;
  }

  /**
   * A repository cloned from a remote (Gitea's migrate): the clone runs first (outside the database
   * transaction), then the row and `within` (the mirror's row and jobs) commit together with the move
   * of the directory into place.
   */
  async createFromRemote(
    actor: User,
    owner: User,
    input: {
      name: string;
      description?: string;
      private?: boolean;
      mirror: boolean;
      remote: { url: string; env: NodeJS.ProcessEnv };
    },
    within: (tx: Transaction, repo: Repository) => Promise<void>,
  ): Promise<Repository> {
    const problem = repositoryNameProblem(input.name);
    if (problem) throw new InvalidError(problem.text, { code: 'REPOSITORY_NAME' });
    if (owner.type === 'organization') await this.assertMayCreateIn(actor, owner);
    if (await this.repos.nameTaken(owner.id, input.name.toLowerCase()))
      throw new ConflictError(REPO_EXISTS, { code: 'REPOSITORY_EXISTS' });
    let staged: StagedMove;
    try {
      staged = await this.storage.prepare(owner.name, input.name, {
        defaultBranch: 'main',
        cloneRemote: { ...input.remote, mirror: input.mirror },
      });
    } catch (error) {
      if (error instanceof GitCommandError) {
        throw new InvalidError(
          `Migration failed: ${redactUrlIn(error.stderr.trim().split('\n').pop() ?? 'git clone failed', input.remote.url)}`,
          { code: 'MIGRATION_FAILED' },
        );
      }
      throw error;
    }
    const id = await this.withStaged([staged], () =>
      this.transactions.run(async (tx) => {
        const row = await this.repos.insert(tx.manager, {
          ownerId: owner.id,
          name: input.name,
          lowerName: input.name.toLowerCase(),
          description: input.description ?? '',
          isPrivate: input.private === true,
          isEmpty: true,
          isMirror: input.mirror,
        });
        await within(tx, row);
        await staged.commit();
        tx.emit('repository.created', {
          repositoryId: row.id,
          ownerId: owner.id,
          name: row.name,
          actorId: actor.id,
        });
        return row.id;
      }),
    ).catch((error: unknown) => {
      if (uniqueViolation(error)) throw new ConflictError(REPO_EXISTS, { code: 'REPOSITORY_EXISTS' });
      throw error;
    });
    const created = (await this.findById(id))!;
    return this.syncFromDisk(created);
  }

  /** Empty flag, default branch (the remote's HEAD when it has one) and size from what is on disk. */
  async syncFromDisk(repo: Repository): Promise<Repository> {
    const gitDir = this.gitDir(repo.owner, repo);
    const branches = await this.storage.branches(gitDir);
    const head = await runGit(['symbolic-ref', '--short', 'HEAD'], { env: { GIT_DIR: gitDir } }).then(
      (out) => out.trim(),
      () => '',
    );
    const changes: Partial<Repository> = {
      isEmpty: branches.length === 0,
      sizeKib: String(await this.storage.sizeKib(gitDir)),
    };
    if (branches.some((branch) => branch.name === head)) changes.defaultBranch = head;
    else if (branches.length > 0 && !branches.some((branch) => branch.name === repo.defaultBranch)) {
      changes.defaultBranch = branches[0]!.name;
      await this.storage.setHead(gitDir, changes.defaultBranch);
    }
    await this.repos.update(repo.id, changes);
    return (await this.findById(repo.id))!;
  }

  /** `GET /repos/{o}/{r}/forks`: the forks the viewer may see. */
  async listForks(
    source: Repository,
    viewer: User | null,
    page: RepositoryListQuery,
  ): Promise<{ items: Repository[]; total: number }> {
    const [items, total] = await this.repos.forksOf(source.id, await this.visibilityOf(viewer), page);
    return { items, total };
  }

  private async assertMayCreateIn(actor: User, organization: User): Promise<void> {
    if (actor.isAdmin) return;
    const membership = (await this.organizations.membershipsOf(actor.id)).find(
      (m) => m.organizationId === organization.id,
    );
    if (membership?.isOwner) return;
    const teams = membership ? await this.organizations.teamsOf(actor.id, organization.id) : [];
    if (teams.some((team) => team.canCreateOrgRepo)) return;
    throw new ForbiddenError('Given user is not owner of organization.', 'permission', {
      code: 'NOT_ORG_OWNER',
    });
  }

  /** Runs a database change around staged directory moves: both happen, or neither. */
  private async withStaged<T>(staged: StagedMove[], work: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (error) {
      for (const move of [...staged].reverse()) await move.rollback().catch(() => undefined);
      throw error;
    }
    return result;
  }

  /** Gitea's EditRepo (PATCH): description, website, private, archived, default_branch, name. */
  async edit(actor: User, owner: User, repo: Repository, input: EditRepositoryInput): Promise<Repository> {
    const gitDir = this.gitDir(owner, repo);
    if (input.defaultBranch !== undefined && input.defaultBranch !== repo.defaultBranch) {
      if (!isValidBranchName(input.defaultBranch))
        throw new InvalidError('[DefaultBranch]: GitRefName', { code: 'DEFAULT_BRANCH' });
      if (!repo.isEmpty) {
        const branches = await this.storage.branches(gitDir);
        if (!branches.some((branch) => branch.name === input.defaultBranch)) {
          throw new NotFoundError('The default branch does not exist', { code: 'BRANCH_NOT_FOUND' });
        }
      }
    }
    const newName = input.name !== undefined && input.name !== repo.name ? input.name : undefined;
    if (newName !== undefined) {
      const problem = repositoryNameProblem(newName);
      if (problem) throw new InvalidError(problem.text, { code: 'REPOSITORY_NAME' });
      const caseOnly = newName.toLowerCase() === repo.lowerName;
      if (!caseOnly && (await this.repos.nameTaken(owner.id, newName.toLowerCase()))) {
        throw new InvalidError(`repository already exists [uname: ${owner.name}, name: ${newName}]`, {
          code: 'REPOSITORY_EXISTS',
        });
      }
    }
    const staged: StagedMove[] = [];
    await this.withStaged(staged, () =>
      this.transactions.run(async (tx) => {
        const changes: Partial<Repository> = {};
        if (input.description !== undefined) changes.description = input.description;
        if (input.website !== undefined) changes.website = input.website;
        if (input.private !== undefined) changes.isPrivate = input.private;
        if (input.archived !== undefined && input.archived !== repo.isArchived) {
          changes.isArchived = input.archived;
          changes.archivedAt = input.archived ? new Date() : null;
        }
        if (input.defaultBranch !== undefined) changes.defaultBranch = input.defaultBranch;
        if (newName !== undefined) {
          changes.name = newName;
          changes.lowerName = newName.toLowerCase();
          await this.repos.redirectRename(
            tx.manager,
            { id: repo.id, ownerId: owner.id, lowerName: repo.lowerName },
            newName.toLowerCase(),
          );
        }
        if (Object.keys(changes).length > 0) await this.repos.update(repo.id, changes, tx.manager);
        if (newName !== undefined) {
          staged.push(
            await this.storage.stageMove(
              { owner: owner.name, name: repo.name },
              { owner: owner.name, name: newName },
            ),
          );
          tx.emit('repository.renamed', {
            repositoryId: repo.id,
            ownerId: owner.id,
            from: repo.name,
            to: newName,
            actorId: actor.id,
          });
        }
      }),
    );
    const updated = (await this.findById(repo.id))!;
    if (input.defaultBranch !== undefined)
      await this.storage.setHead(this.gitDir(owner, updated), updated.defaultBranch);
    return updated;
  }

  /** Deletes the row and the repository on disk, together (the directory waits in the trash until the commit). */
  async delete(actor: User | null, owner: User, repo: Repository): Promise<void> {
    let staged: StagedMove | undefined;
    try {
      await this.transactions.run(async (tx) => {
        await this.deletionHooks.run(tx, { kind: 'repository', id: repo.id });
        await this.repos.delete(tx.manager, repo.id);
        staged = await this.storage.stageDelete(owner.name, repo.name);
        tx.emit('repository.deleted', {
          repositoryId: repo.id,
          ownerId: owner.id,
          name: repo.name,
          actorId: actor?.id ?? null,
        });
      });
    } catch (error) {
      await staged?.rollback().catch(() => undefined);
      throw error;
    }
    await staged?.commit();
  }

  /**
   * Deletes a repository inside a caller's transaction (purging an account): the directory goes to
   * the trash now, back if the transaction fails, away for good after the commit.
   */
  async deleteInTransaction(repo: Repository, tx: Transaction): Promise<void> {
    await this.deletionHooks.run(tx, { kind: 'repository', id: repo.id });
    await this.repos.delete(tx.manager, repo.id);
    const staged = await this.storage.stageDelete(repo.owner.name, repo.name);
    tx.afterCommit(() => staged.commit());
    tx.onRollback(() => staged.rollback());
    tx.emit('repository.deleted', {
      repositoryId: repo.id,
      ownerId: repo.ownerId,
      name: repo.name,
      actorId: null,
    });
  }

  /** How many repositories an account owns (user deletion refuses while any). */
  countOwnedBy(ownerId: string, manager?: EntityManager): Promise<number> {
    return this.repos.countOwnedBy(ownerId, manager);
  }

  /** Repositories an account owns, for purging with the account. */
  ownedBy(ownerId: string, manager?: EntityManager): Promise<Repository[]> {
    return this.repos.ownedBy(ownerId, manager);
  }

  /**
   * What a ref move changes on the repository's row, from git (the caller writes it in its
   * transaction: RefChangesService): emptiness and size; an empty repository (or one whose default
   * branch is gone) takes the first pushed branch as default (HEAD is moved here).
   */
  async pushChanges(
    repo: Repository,
    owner: User,
    pushedBranches: string[],
    manager?: EntityManager,
  ): Promise<Partial<Repository>> {
    const gitDir = this.gitDir(owner, repo);
    const branches = await this.storage.branches(gitDir);
    const changes: Partial<Repository> = {
      isEmpty: branches.length === 0,
      // Gitea's size: git's objects plus the repository's LFS objects.
      sizeKib: String(
        (await this.storage.sizeKib(gitDir)) + (await this.lfsObjects.sizeKib(repo.id, manager)),
      ),
    };
    if (branches.length > 0 && !branches.some((branch) => branch.name === repo.defaultBranch)) {
      changes.defaultBranch =
        pushedBranches.find((name) => branches.some((b) => b.name === name)) ?? branches[0]!.name;
      await this.storage.setHead(gitDir, changes.defaultBranch);
    }
    return changes;
  }

  /** Account names by lower-cased e-mail address (Gitea resolves commit authors to accounts this way). */
  usernamesByEmail(emails: string[]): Promise<Map<string, string>> {
    return this.directory.namesByEmails(emails);
  }

  // ------------------------------------------------------------------------------- lists

  /**
   * What a user may reach beyond public repositories and their own, from identity's services:
   * organizations they own or whose teams cover every repository, and the teams they are in.
   */
  private async reach(user: User): Promise<RepositoryReach> {
    const owned = (await this.organizations.membershipsOf(user.id))
      .filter((m) => m.isOwner)
      .map((m) => m.organizationId);
    const teams = await this.organizations.allTeamsOf(user.id);
    const allRepos = teams.filter((team) => team.includesAllRepositories).map((team) => team.organizationId);
    return { orgIds: [...new Set([...owned, ...allRepos])], teamIds: teams.map((team) => team.id) };
  }

  /** Which repositories the viewer may see: public ones, and private ones they have access to. */
  private async visibilityOf(viewer: User | null): Promise<RepositoryVisibility> {
    if (viewer?.isAdmin) return { kind: 'all' };
    if (!viewer) return { kind: 'public' };
    return { kind: 'user', viewerId: viewer.id, reach: await this.reach(viewer) };
  }

  /** `GET /users/{u}/repos`, `GET /orgs/{org}/repos`: an owner's repositories the viewer may see. */
  async listOwnedBy(
    owner: User,
    viewer: User | null,
    page: RepositoryListQuery,
  ): Promise<{ items: Repository[]; total: number }> {
    const [items, total] = await this.repos.listOwnedBy(owner.id, await this.visibilityOf(viewer), page);
    return { items, total };
  }

  /** `GET /user/repos`: what the user owns or may access (collaborations, organizations, teams). */
  async listAccessibleBy(
    user: User,
    page: RepositoryListQuery,
  ): Promise<{ items: Repository[]; total: number }> {
    const [items, total] = await this.repos.listAccessibleBy(user.id, await this.reach(user), page);
    return { items, total };
  }

  /** `GET /repos/search`. */
  async search(
    viewer: User | null,
    search: SearchRepositoriesQuery,
  ): Promise<{ items: Repository[]; total: number }> {
    const [items, total] = await this.repos.search(await this.visibilityOf(viewer), {
      ...search,
      q: search.q ? search.q.toLowerCase() : search.q,
    });
    return { items, total };
  }

  get publicUrl(): string {
    return this.config.publicUrl;
  }
}

import {
  applyDecorators,
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  ForbiddenError,
  MovedError,
  NotFoundError,
  UnauthenticatedError,
} from '../../platform/errors/domain-error';
import {
  type AccessDeclaration,
  RESOURCE_ASSIGNMENT,
  type ResourceAssigner,
} from '../../api/access/access.decorators';
import type { AnyPrincipal, UserPrincipal } from '../../api/access/principal';
import { missingGiteaScope } from '../auth/token-scopes';
import type { User } from '../identity/entities/user.entity';
import type { Repository } from './entities/repository.entity';
import { RepositoriesService } from './repositories.service';
import {
  ADMIN_REFUSAL,
  type AccessMode,
  atLeast,
  OWNER_REFUSAL,
  repositoryNotFound,
  RepositoryPermissions,
  WRITE_REFUSAL,
} from './repository-permissions.service';

/** What @RepoAccess stashes for the handler (`@Repo() ctx`). */
export interface RepositoryContext {
  repo: Repository;
  owner: User;
  /** The caller's access mode, computed once. */
  mode: AccessMode;
  /** The signed-in user, or null for anonymous callers (and agents or provisioners). */
  viewer: User | null;
}

/** The level a route requires: fixed, or from the request (smart HTTP's `info/refs?service=`). */
export type RepoAccessLevel = AccessMode | ((req: Request) => AccessMode);

export interface RepoAccessOptions {
  /**
   * The Gitea scope category a key needs to read through a public route when the repository is
   * private (Gitea: `read:repository`, `read:issue` for issues and their assets). Authenticated
   * routes declare their scopes in @Authenticated as before. Default `repository`.
   */
  scope?: 'repository' | 'issue';
  /**
   * git smart HTTP: `{repo}` may end in `.git`; anonymous callers get a Basic challenge (401) where a
   * signed-in caller could succeed (private repositories, pushes) so git asks for credentials; keys
   * need `read:repository` on private repositories and `write:repository` to push; writes refuse
   * archived repositories and mirrors with git's texts.
   */
  protocol?: 'git';
}

interface RepoAccessSpec extends RepoAccessOptions {
  level: RepoAccessLevel;
}

export const REPO_ACCESS_METADATA = 'devplane:repo-access';

const contexts = new WeakMap<Request, RepositoryContext>();

/** The context @RepoAccess stashed on the request (throws when the route declares none: a programming error). */
export function requestRepositoryContext(req: Request): RepositoryContext {
  const context = contexts.get(req);
  if (!context) throw new Error('@Repo() on a route without @RepoAccess');
  return context;
}

/** Stashes the context for `@Repo()`: for assignments that decide access their own way (LFS transfer links). */
export function assignRepositoryContext(req: Request, context: RepositoryContext): void {
  contexts.set(req, context);
}

function levelOf(spec: RepoAccessSpec, req: Request): AccessMode {
  return typeof spec.level === 'function' ? spec.level(req) : spec.level;
}

function userOf(principal: AnyPrincipal | undefined): UserPrincipal | undefined {
  return principal?.kind === 'user' ? principal : undefined;
}

/**
 * The path of this request at the repository's new `{owner}/{repo}`: the first occurrence of the
 * old pair as consecutive path segments (`/repos/o/r/...` for the Gitea API, `/o/r.git/...` for git)
 * is replaced; the rest of the path and the query stay.
 */
export function movedLocation(
  originalUrl: string,
  from: { owner: string; repo: string },
  to: { owner: string; name: string },
): string {
  const queryAt = originalUrl.indexOf('?');
  const path = queryAt === -1 ? originalUrl : originalUrl.slice(0, queryAt);
  const query = queryAt === -1 ? '' : originalUrl.slice(queryAt);
  const segments = path.split('/');
  const decoded = segments.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
  for (let i = 0; i + 1 < segments.length; i++) {
    if (decoded[i] !== from.owner || decoded[i + 1] !== from.repo) continue;
    const gitSuffix = from.repo.endsWith('.git') || decoded[i + 1]!.endsWith('.git') ? '.git' : '';
    const name = gitSuffix && !to.name.endsWith('.git') ? `${to.name}${gitSuffix}` : to.name;
    segments[i] = encodeURIComponent(to.owner);
    segments[i + 1] = encodeURIComponent(name);
    break;
  }
  return `${segments.join('/')}${query}`;
}

/**
 * Gitea's `repoAssignment()`, run by the AuthGuard after credentials and before login and token
 * requirements (access.decorators.ts, RESOURCE_ASSIGNMENT): resolves `{owner}/{repo}` (unknown: 404;
 * renamed: MovedError, which each dialect renders as its redirect), computes the caller's mode once,
 * refuses a repository the caller may not read with 404 (anonymous included), applies the token
 * scopes of reads of private repositories (and of every push), and stashes the context.
 */
@Injectable()
export class RepoAssignment implements ResourceAssigner {
  constructor(
    private readonly reflector: Reflector,
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
  ) {}

  async assign(
    context: ExecutionContext,
    principal: AnyPrincipal | undefined,
    access: AccessDeclaration,
  ): Promise<void> {
    const spec = this.reflector.getAllAndOverride<RepoAccessSpec | undefined>(REPO_ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!spec) throw new Error('RepoAssignment on a route without @RepoAccess');
    const req = context.switchToHttp().getRequest<Request>();
    const params = req.params as { owner?: string; repo?: string };
    const ownerName = params.owner ?? '';
    const rawRepo = params.repo ?? '';
    const git = spec.protocol === 'git';
    const repoName = git && rawRepo.endsWith('.git') ? rawRepo.slice(0, -4) : rawRepo;
    const caller = userOf(principal);
    const viewer = caller?.user ?? null;
    const required = levelOf(spec, req);

    let resolved;
    try {
      resolved = await this.repositories.resolve(ownerName, repoName);
    } catch (error) {
      if (git && error instanceof NotFoundError)
        throw new NotFoundError('Repository not found', { code: 'REPOSITORY_NOT_FOUND' });
      throw error;
    }
    if ('redirectTo' in resolved) {
      throw new MovedError(
        movedLocation(req.originalUrl, { owner: ownerName, repo: rawRepo }, resolved.redirectTo),
        'Repository moved',
        { code: 'REPOSITORY_MOVED' },
      );
    }
    const { repo, owner } = resolved;
    const mode = await this.permissions.modeOf(viewer, repo);

    if (git) {
      // git needs a challenge to send credentials: where a signed-in caller could succeed.
      if (!viewer && (repo.isPrivate || required !== 'read'))
        throw new UnauthenticatedError('missing', 'Authentication required');
      if (!atLeast(mode, 'read'))
        throw new NotFoundError('Repository not found', { code: 'REPOSITORY_NOT_FOUND' });
      // Gitea's githttp: a key needs read:repository where authentication is required, write:repository to push.
      if (caller && (repo.isPrivate || required !== 'read')) {
        const problem = missingGiteaScope(caller, ['repository'], required === 'read' ? 'GET' : 'POST');
        if (problem) throw new ForbiddenError(problem, 'scope');
      }
      if (required !== 'read') {
        if (!atLeast(mode, 'write'))
          throw new ForbiddenError('User permission denied to push to this repository.');
        if (repo.isArchived) {
          throw new ForbiddenError(
            'This repository is archived. You can view files and clone it, but cannot push.',
            'permission',
            { code: 'REPOSITORY_ARCHIVED' },
          );
        }
        if (repo.isMirror)
          throw new ForbiddenError('mirror repository is read-only', 'permission', {
            code: 'REPOSITORY_MIRROR',
          });
      }
    } else {
      if (!atLeast(mode, 'read')) throw repositoryNotFound();
      // Public read routes on a private repository: the key needs the read scope (authenticated
      // routes' scopes are applied by the AuthGuard right after this).
      if (caller && repo.isPrivate && access.kind === 'public') {
        const problem = missingGiteaScope(caller, [spec.scope ?? 'repository'], 'GET');
        if (problem) throw new ForbiddenError(problem, 'scope');
      }
    }
    contexts.set(req, { repo, owner, mode, viewer });
  }
}

/**
 * The required level, after the AuthGuard's login and token requirements (Gitea: reqToken 401 →
 * reqRepoWriter/Admin 403): 403 with Gitea's texts.
 */
@Injectable()
export class RepoAccessGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const spec = this.reflector.getAllAndOverride<RepoAccessSpec | undefined>(REPO_ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const req = context.switchToHttp().getRequest<Request>();
    if (!spec) return true;
    const { mode } = requestRepositoryContext(req);
    const required = levelOf(spec, req);
    if (spec.protocol === 'git' || atLeast(mode, required)) return true;
    throw new ForbiddenError(
      required === 'write' ? WRITE_REFUSAL : required === 'admin' ? ADMIN_REFUSAL : OWNER_REFUSAL,
    );
  }
}

/**
 * The route serves one repository, `{owner}/{repo}` of its path, at `level`: Gitea's
 * `repoAssignment()` + `reqRepoReader/Writer/Admin` (see RepoAssignment). Also documents both path
 * parameters. The handler takes the context with `@Repo()`.
 */
export function RepoAccess(level: RepoAccessLevel, options: RepoAccessOptions = {}): MethodDecorator {
  return applyDecorators(
    SetMetadata(REPO_ACCESS_METADATA, { level, ...options } satisfies RepoAccessSpec),
    SetMetadata(RESOURCE_ASSIGNMENT, RepoAssignment),
    UseGuards(RepoAccessGuard),
    ApiParam({ name: 'owner', type: String, description: 'owner of the repository' }),
    ApiParam({
      name: 'repo',
      type: String,
      description:
        options.protocol === 'git' ? 'name of the repository (`.git` optional)' : 'name of the repository',
    }),
  );
}

/** The repository context @RepoAccess resolved for this request. */
export const Repo = createParamDecorator((_data: unknown, context: ExecutionContext): RepositoryContext =>
  requestRepositoryContext(context.switchToHttp().getRequest<Request>()),
);

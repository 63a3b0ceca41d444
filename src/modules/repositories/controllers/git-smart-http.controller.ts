import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { BodyStream, StreamBody } from '../../../api/body/body.decorators';
import { GitController } from '../../../api/git/git-controller.decorator';
import { ForbiddenError, NotFoundError, UnauthenticatedError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { CurrentPrincipal, Public } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import { GitStorage } from '../git/git-storage.service';
import { PushSessions } from '../git/push-sessions.service';
import { type GitService, SmartHttpService } from '../git/smart-http.service';
import { RepositoriesService } from '../repositories.service';
import { atLeast, RepositoryPermissions } from '../repository-permissions.service';

const SERVICES: readonly GitService[] = ['git-upload-pack', 'git-receive-pack'];

/** The local address a request came in on, as a URL host (IPv4-mapped IPv6 as IPv4). */
function hookHost(address: string | undefined): string {
  if (!address) return '127.0.0.1';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  return address.includes(':') ? `[${address}]` : address;
}

function repoName(raw: string): string {
  return raw.endsWith('.git') ? raw.slice(0, -4) : raw;
}

/**
 * git smart HTTP (`git clone/fetch/push https://host/{owner}/{repo}.git`, the `.git` optional).
 * Credentials as on every route (Basic with a password or a token, the token as user name);
 * anonymous callers get a Basic challenge (401) for private repositories and for pushes; signed-in
 * callers who may not read get 404, readers who may not write get 403; archived repositories and
 * mirrors refuse pushes.
 */
@GitController('')
export class GitSmartHttpController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly storage: GitStorage,
    private readonly smartHttp: SmartHttpService,
    private readonly pushes: PushSessions,
  ) {}

  private async authorize(
    user: User | null,
    ownerName: string,
    rawRepo: string,
    service: GitService,
  ): Promise<{ repo: Repository; owner: User }> {
    const isPush = service === 'git-receive-pack';
    const challenge = () => new UnauthenticatedError('missing', 'Authentication required');
    let resolved;
    try {
      resolved = await this.repositories.resolve(ownerName, repoName(rawRepo));
    } catch (error) {
      if (error instanceof NotFoundError) {
        if (!user) throw challenge();
        throw new NotFoundError('Repository not found', { code: 'REPOSITORY_NOT_FOUND' });
      }
      throw error;
    }
    const { repo, owner } =
      'redirectTo' in resolved
        ? ((await this.repositories.resolve(resolved.redirectTo.owner, resolved.redirectTo.name)) as {
            repo: Repository;
            owner: User;
          })
        : resolved;
    const mode = await this.permissions.modeOf(user, repo);
    if (!user && (repo.isPrivate || isPush)) throw challenge();
    if (!atLeast(mode, 'read'))
      throw new NotFoundError('Repository not found', { code: 'REPOSITORY_NOT_FOUND' });
    if (isPush) {
      if (!atLeast(mode, 'write'))
        throw new ForbiddenError('User permission denied to push to this repository.');
      if (repo.isArchived) {
        throw new ForbiddenError(
          'This repository is archived. You can view files and clone it, but cannot push.',
          'permission',
          {
            code: 'REPOSITORY_ARCHIVED',
          },
        );
      }
      if (repo.isMirror)
        throw new ForbiddenError('mirror repository is read-only', 'permission', {
          code: 'REPOSITORY_MIRROR',
        });
    }
    return { repo, owner };
  }

  @Get(':owner/:repo/info/refs')
  @Public()
  async infoRefs(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('owner') ownerName: string,
    @Param('repo') rawRepo: string,
    @Query('service') service: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    if (!SERVICES.includes(service as GitService)) {
      throw new ForbiddenError(
        'Please upgrade your git client: devplane serves the smart HTTP protocol only.',
        'permission',
        { code: 'DUMB_HTTP' },
      );
    }
    const { repo, owner } = await this.authorize(
      principal?.user ?? null,
      ownerName,
      rawRepo,
      service as GitService,
    );
    await this.smartHttp.advertise(
      this.repositories.gitDir(owner, repo),
      service as GitService,
      req.get('git-protocol'),
      res,
    );
  }

  @Post(':owner/:repo/git-upload-pack')
  @Public()
  @StreamBody()
  async uploadPack(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('owner') ownerName: string,
    @Param('repo') rawRepo: string,
    @BodyStream() body: Readable,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const { repo, owner } = await this.authorize(
      principal?.user ?? null,
      ownerName,
      rawRepo,
      'git-upload-pack',
    );
    await this.smartHttp.rpc(
      this.repositories.gitDir(owner, repo),
      'git-upload-pack',
      body,
      req.get('git-protocol'),
      res,
    );
  }

  @Post(':owner/:repo/git-receive-pack')
  @Public()
  @StreamBody()
  async receivePack(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('owner') ownerName: string,
    @Param('repo') rawRepo: string,
    @BodyStream() body: Readable,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const user = principal?.user ?? null;
    const { repo, owner } = await this.authorize(user, ownerName, rawRepo, 'git-receive-pack');
    // The hooks call back into this instance on the address and port this request came in on.
    const hookBase = `http://${hookHost(req.socket.localAddress)}:${req.socket.localPort}/api/internal/git-hooks`;
    const session = this.pushes.open({
      repositoryId: repo.id,
      pusherId: user!.id,
      request: requestSnapshot(req),
    });
    try {
      await this.smartHttp.rpc(
        this.repositories.gitDir(owner, repo),
        'git-receive-pack',
        body,
        req.get('git-protocol'),
        res,
        {
          args: ['-c', `core.hooksPath=${this.storage.hooksPath}`],
          env: { DEVPLANE_HOOK_URL: hookBase, DEVPLANE_HOOK_TOKEN: session.token },
        },
      );
    } finally {
      session.close();
    }
  }
}

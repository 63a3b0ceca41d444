import { FinishBeforeShutdown } from '../../../platform/lifecycle/shutdown-drain';
import { Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { BodyStream, StreamBody } from '../../../api/body/body.decorators';
import { GitController } from '../../../api/git/git-controller.decorator';
import { ForbiddenError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { DocumentCredentials, Public } from '../../../api/access/access.decorators';
import { GitStorage } from '../git/git-storage.service';
import { PushSessions } from '../git/push-sessions.service';
import { type GitService, SmartHttpService } from '../git/smart-http.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';
import { RepositoriesService } from '../repositories.service';

const SERVICES: readonly GitService[] = ['git-upload-pack', 'git-receive-pack'];

/** The local address a request came in on, as a URL host (IPv4-mapped IPv6 as IPv4). */
function hookHost(address: string | undefined): string {
  if (!address) return '127.0.0.1';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  return address.includes(':') ? `[${address}]` : address;
}

/** `info/refs?service=git-receive-pack` starts a push: it needs write access (and write:repository). */
function infoRefsLevel(req: Request): 'read' | 'write' {
  return req.query.service === 'git-receive-pack' ? 'write' : 'read';
}

/**
 * git smart HTTP (`git clone/fetch/push https://host/{owner}/{repo}.git`, the `.git` optional).
 * Credentials as on every route (Basic with a password or a token, the token as user name).
 * @RepoAccess (repo-access.ts, protocol `git`) authorizes each request once: unknown owners and
 * repositories 404, renamed ones redirect, anonymous callers get a Basic challenge (401) for private
 * repositories and for pushes; signed-in callers who may not read get 404, readers who may not write
 * 403; a key needs `read:repository` to fetch a private repository and `write:repository` to push;
 * archived repositories and mirrors refuse pushes. A password (Basic) carries the user's rights.
 */
@DocumentPathParams()
@GitController('')
export class GitSmartHttpController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly storage: GitStorage,
    private readonly smartHttp: SmartHttpService,
    private readonly pushes: PushSessions,
  ) {}

  @Get(':owner/:repo/info/refs')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @RepoAccess(infoRefsLevel, { protocol: 'git' })
  @ApiOperation({
    summary: 'git smart HTTP: the refs advertisement (`{repo}` may end in `.git`); a push needs credentials',
  })
  @ApiQuery({ name: 'service', enum: SERVICES, required: true })
  @ApiResponse({ status: 200, description: '`application/x-<service>-advertisement`' })
  @ApiResponse({ status: 401, description: 'Basic challenge: a private repository, or a push' })
  async infoRefs(
    @Repo() { repo, owner }: RepositoryContext,
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
    await this.smartHttp.advertise(
      this.repositories.gitDir(owner, repo),
      service as GitService,
      req.get('git-protocol'),
      res,
    );
  }

  @Post(':owner/:repo/git-upload-pack')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @RepoAccess('read', { protocol: 'git' })
  @StreamBody()
  @ApiOperation({ summary: 'git smart HTTP: fetch and clone (a pack for the wants and haves git sends)' })
  @ApiResponse({ status: 200, description: '`application/x-git-upload-pack-result`' })
  async uploadPack(
    @Repo() { repo, owner }: RepositoryContext,
    @BodyStream() body: Readable,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.smartHttp.rpc(
      this.repositories.gitDir(owner, repo),
      'git-upload-pack',
      body,
      req.get('git-protocol'),
      res,
    );
  }

  @Post(':owner/:repo/git-receive-pack')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @RepoAccess('write', { protocol: 'git' })
  @StreamBody()
  // The hooks call back on a new connection: the listener stays open until the push ended (issue 36.8).
  @FinishBeforeShutdown()
  @ApiOperation({ summary: 'git smart HTTP: push (the pusher needs write access and `write:repository`)' })
  @ApiResponse({ status: 200, description: '`application/x-git-receive-pack-result`' })
  @DocumentCredentials()
  async receivePack(
    @Repo() { repo, owner, viewer, mode }: RepositoryContext,
    @BodyStream() body: Readable,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // The hooks call back into this instance on the address and port this request came in on.
    const hookBase = `http://${hookHost(req.socket.localAddress)}:${req.socket.localPort}/api/internal/git-hooks`;
    // The one authorization of this push: the hooks act on what it decided (no second check, no re-read).
    const session = this.pushes.open({
      repository: repo,
      // RepoAccess('write', git) admits signed-in users only.
      pusher: viewer!,
      mode,
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

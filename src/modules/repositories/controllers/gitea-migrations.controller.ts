import { Body, HttpCode, Post } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { ForbiddenError, InvalidError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import { MigrateRepoOptionsDto } from '../dto/mirrors.dto';
import { formatGoDuration, MirrorsService, parseGoDuration } from '../mirrors/mirrors.service';
import { GiteaRepositoryDto, presentGiteaRepository } from '../presenters/gitea-repository.presenter';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };

/** Gitea's migrations (`POST /repos/migrate`) and mirror syncs (`POST /repos/{o}/{r}/mirror-sync`), scope `repository`. */
@DocumentPathParams()
@GiteaController('repos')
export class GiteaMigrationsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly mirrors: MirrorsService,
    private readonly users: UsersService,
  ) {}

  private async owner(actor: User, body: MigrateRepoOptionsDto): Promise<User> {
    let owner: User | null = actor;
    if (body.repo_owner) owner = await this.users.findAccountByName(body.repo_owner);
    else if (body.uid) owner = await this.users.findById(String(body.uid));
    if (!owner)
      throw new InvalidError(`user does not exist [uid: ${body.uid ?? 0}, name: ${body.repo_owner ?? ''}]`, {
        code: 'USER_NOT_FOUND',
      });
    if (owner.id !== actor.id && owner.type !== 'organization' && !actor.isAdmin) {
      throw new ForbiddenError('Given user is not an organization.', 'permission', { code: 'NOT_AN_ORG' });
    }
    return owner;
  }

  @Post('migrate')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Migrate (clone) a remote git repository, optionally as a mirror' })
  @ApiCreatedResponse({ type: GiteaRepositoryDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async migrate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: MigrateRepoOptionsDto,
  ): Promise<GiteaRepositoryDto> {
    const owner = await this.owner(principal.user, body);
    let intervalSeconds: number | undefined;
    if (body.mirror_interval !== undefined && body.mirror_interval !== '') {
      const parsed = body.mirror_interval === '0' ? 0 : parseGoDuration(body.mirror_interval);
      if (parsed === null)
        throw new InvalidError(`Invalid mirror interval: ${body.mirror_interval}`, {
          code: 'MIRROR_INTERVAL',
        });
      intervalSeconds = parsed;
    }
    const { repo, mirror } = await this.mirrors.migrate(principal.user, owner, {
      cloneAddr: body.clone_addr,
      name: body.repo_name,
      description: body.description,
      private: body.private,
      mirror: body.mirror,
      intervalSeconds,
      auth: { username: body.auth_username, password: body.auth_password, token: body.auth_token },
    });
    const mode = await this.permissions.modeOf(principal.user, repo);
    const presented = presentGiteaRepository(
      repo,
      repo.owner,
      principal.user,
      mode,
      this.repositories.publicUrl,
    );
    if (mirror) {
      presented.original_url = mirror.remoteUrl;
      presented.mirror_interval = formatGoDuration(mirror.intervalSeconds);
      if (mirror.updatedAt) presented.mirror_updated = mirror.updatedAt.toISOString();
    } else {
      presented.original_url = new URL(body.clone_addr).origin + new URL(body.clone_addr).pathname;
    }
    return presented;
  }

  @Post(':owner/:repo/mirror-sync')
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Sync a mirror from its remote now (a durable job)' })
  @ApiOkResponse({ description: 'queued' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write')
  async sync(@Repo() context: RepositoryContext): Promise<void> {
    await this.mirrors.requestSync(context.repo);
  }
}

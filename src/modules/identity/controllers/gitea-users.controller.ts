import { Get, Inject, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaUserDto, presentGiteaUser } from '../presenters/gitea-user.presenter';
import { UserDirectory } from '../user-directory.service';

@GiteaController('')
export class GiteaUsersController {
  constructor(
    private readonly directory: UserDirectory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('user')
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: 'Get the authenticated user' })
  @ApiOkResponse({ type: GiteaUserDto })
  current(@CurrentPrincipal() principal: Principal): GiteaUserDto {
    return presentGiteaUser(principal.user, principal.user, this.config.publicUrl);
  }

  @Get('users/:username')
  @Public()
  @ApiOperation({ summary: 'Get a user' })
  @ApiOkResponse({ type: GiteaUserDto })
  async get(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('username') username: string,
  ): Promise<GiteaUserDto> {
    const user = await this.directory.requireGiteaUser(username);
    const viewer = principal?.user;
    // Private users are visible to themselves and admins only; limited ones to signed-in users.
    const visible =
      user.visibility === 'public' ||
      (user.visibility === 'limited' && viewer !== undefined) ||
      (viewer !== undefined && (viewer.isAdmin || viewer.id === user.id));
    if (!visible) throw new NotFoundError(`user does not exist [uid: 0, name: ${username}]`);
    return presentGiteaUser(user, viewer, this.config.publicUrl);
  }
}

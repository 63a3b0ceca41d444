import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import { AuthorizationService } from '../../auth/authorization.service';
import type { Principal } from '../../auth/principal';
import { UserDirectory } from '../user-directory.service';
import { OrganizationsService } from '../organizations.service';
import { CoderUserDto, presentCoderUser } from '../presenters/coder-user.presenter';

@CoderController('users')
export class CoderUsersController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly organizations: OrganizationsService,
    private readonly authz: AuthorizationService,
  ) {}

  @Get(':user')
  @Authenticated({ tokenScope: { type: 'user', action: 'read' } })
  @ApiOperation({ summary: 'Get a user by id, username or "me"' })
  @ApiParam({ name: 'user', description: 'user id (uuid), username, or `me`' })
  @ApiOkResponse({ type: CoderUserDto })
  async get(@CurrentPrincipal() principal: Principal, @Param('user') ref: string): Promise<CoderUserDto> {
    const user = await this.directory.requireCoderUser(ref, principal);
    // Users the caller may not read are reported as missing (Coder answers 404 for both).
    await this.authz.require(principal, 'read', AuthorizationService.userObject(user), { notFound: true });
    return presentCoderUser(user, await this.organizations.membershipsOf(user.id));
  }
}

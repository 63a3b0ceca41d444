import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiOcsOkResponse } from '../../../api/ocs/api-ocs-ok-response.decorator';
import { OcsController } from '../../../api/ocs/ocs-controller.decorator';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { OrganizationsService } from '../organizations.service';
import { OcsUserDto, presentOcsUser } from '../presenters/ocs-user.presenter';

@OcsController('cloud')
export class OcsCloudUserController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get('user')
  // The caller's own profile: Gitea `read:user` (as GET /api/v1/user), Coder `user` read (as GET /api/v2/users/me).
  @Authenticated({ scopes: ['user'], tokenScope: { type: 'user', action: 'read' } })
  @ApiOperation({ summary: 'The signed-in user (Nextcloud provisioning shape), in the OCS envelope' })
  @ApiOcsOkResponse(OcsUserDto, 'The user in the OCS envelope')
  async current(@CurrentPrincipal() principal: Principal): Promise<OcsUserDto> {
    return presentOcsUser(
      principal.user,
      [...(await this.organizations.groupsOf(principal.user.id))].filter((group) => group !== 'admin'),
    );
  }
}

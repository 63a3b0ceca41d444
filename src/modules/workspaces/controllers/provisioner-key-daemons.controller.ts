import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { AuthorizationService } from '../../auth/authorization.service';
import { CoderOrganizationsService } from '../../identity/management/coder-organizations.service';
import { ProvisionerDaemonDto, ProvisionerKeyDto } from '../dto/workspaces.dto';
import { presentDaemon } from '../provisioner-daemon.presenter';
import {
  BUILT_IN_KEY_ID,
  BUILT_IN_KEY_NAME,
  ProvisionerDaemonsService,
} from '../provisioner-daemons.service';
import { ProvisionerKeysService } from '../provisioner-keys.service';

class ProvisionerKeyDaemonsDto {
  @ApiProperty({ type: ProvisionerKeyDto }) key: ProvisionerKeyDto;
  @ApiProperty({ type: [ProvisionerDaemonDto] }) daemons: ProvisionerDaemonDto[];
}

/**
 * Coder's provisioners page (issue 48 item 3): each provisioner key of the organization with the daemons
 * that use it; the built-in daemons (no key) under Coder's `built-in` key.
 */
@CoderController('organizations/:organization/provisionerkeys/daemons')
export class ProvisionerKeyDaemonsController {
  constructor(
    private readonly organizations: CoderOrganizationsService,
    private readonly authz: AuthorizationService,
    private readonly keys: ProvisionerKeysService,
    private readonly daemons: ProvisionerDaemonsService,
  ) {}

  @Get()
  @Authenticated({ tokenScope: { type: 'provisioner_daemon', action: 'read' } })
  @ApiOperation({ summary: "An organization's provisioner keys with their daemons" })
  @ApiOkResponse({ type: [ProvisionerKeyDaemonsDto] })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<ProvisionerKeyDaemonsDto[]> {
    const organization = await this.organizations.resolve(principal, ref);
    const organizationId = organization.account.uuid;
    await this.authz.require(principal, 'read', { type: 'provisioner_daemon', orgId: organizationId });
    const now = Date.now();
    const rows = await this.daemons.ofOrganization(organizationId, { ids: [], tags: undefined });
    const daemons = rows.map((row) => presentDaemon(row, organizationId, now));
    const builtIn: ProvisionerKeyDaemonsDto = {
      key: {
        id: BUILT_IN_KEY_ID,
        created_at: new Date(0).toISOString(),
        organization: organizationId,
        name: BUILT_IN_KEY_NAME,
        tags: {},
      },
      daemons: daemons.filter((daemon) => daemon.key_id === BUILT_IN_KEY_ID),
    };
    const keyed = (await this.keys.list(organizationId)).map((key) => ({
      key: {
        id: key.id,
        created_at: new Date(key.createdAt).toISOString(),
        organization: key.organizationId,
        name: key.name,
        tags: key.tags,
      },
      daemons: daemons.filter((daemon) => daemon.key_id === key.id),
    }));
    return [builtIn, ...keyed];
  }
}

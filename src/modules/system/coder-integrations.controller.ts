import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../../api/access/access.decorators';
import type { Principal } from '../../api/access/principal';
import { CoderController } from '../../api/coder/coder-controller.decorator';
import { AuthorizationService } from '../auth/authorization.service';
import { CoderOrganizationsService } from '../identity/management/coder-organizations.service';

class ListUserExternalAuthResponseDto {
  @ApiProperty({ type: [Object] }) providers: unknown[];
  @ApiProperty({ type: [Object] }) links: unknown[];
}

class OrganizationSyncSettingsDto {
  @ApiProperty() field: string;
  @ApiProperty({ type: Object }) mapping: Record<string, string[]>;
  @ApiProperty() organization_assign_default: boolean;
}

class GroupSyncSettingsDto {
  @ApiProperty() field: string;
  @ApiProperty({ type: Object }) mapping: Record<string, string[]>;
  @ApiProperty({ type: String, nullable: true }) regex_filter: string | null;
  @ApiProperty() auto_create_missing_groups: boolean;
}

class RoleSyncSettingsDto {
  @ApiProperty() field: string;
  @ApiProperty({ type: Object }) mapping: Record<string, string[]>;
}

/**
 * Integrations devplane does not have, read by pages of Coder's UI (issue 48 item 3): an OAuth2
 * provider, external auth (git providers), IdP group/role/organization sync. Coder's answers for a
 * deployment without them: empty lists and empty sync settings (no claim field, no mapping).
 */
@CoderController('')
export class CoderIntegrationsController {
  constructor(
    private readonly organizations: CoderOrganizationsService,
    private readonly authz: AuthorizationService,
  ) {}

  @Get('oauth2-provider/apps')
  @Authenticated({ tokenScope: { type: 'oauth2_app', action: 'read' } })
  @ApiOperation({ summary: 'OAuth2 provider apps: none (devplane is no OAuth2 provider)' })
  @ApiOkResponse({ description: '[]codersdk.OAuth2ProviderApp' })
  oauth2Apps(): unknown[] {
    return [];
  }

  @Get('external-auth')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({
    summary: "The caller's external auth links: none (devplane has no external auth providers)",
  })
  @ApiOkResponse({ type: ListUserExternalAuthResponseDto })
  externalAuth(): ListUserExternalAuthResponseDto {
    return { providers: [], links: [] };
  }

  @Get('settings/idpsync/organization')
  @Authenticated({ rbac: { type: 'idpsync_settings', action: 'read' } })
  @ApiOperation({ summary: 'Organization sync from the IdP: off' })
  @ApiOkResponse({ type: OrganizationSyncSettingsDto })
  organizationSync(): OrganizationSyncSettingsDto {
    return { field: '', mapping: {}, organization_assign_default: true };
  }

  @Get('settings/idpsync/available-fields')
  @Authenticated({ rbac: { type: 'idpsync_settings', action: 'read' } })
  @ApiOperation({ summary: 'IdP claim fields seen: none' })
  @ApiOkResponse({ type: [String] })
  availableFields(): string[] {
    return [];
  }

  private async readableOrganization(principal: Principal, ref: string): Promise<void> {
    const organization = await this.organizations.resolve(principal, ref);
    await this.authz.require(principal, 'read', {
      type: 'idpsync_settings',
      orgId: organization.account.uuid,
    });
  }

  @Get('organizations/:organization/settings/idpsync/groups')
  @Authenticated({ tokenScope: { type: 'idpsync_settings', action: 'read' } })
  @ApiOperation({ summary: 'Group sync from the IdP: off' })
  @ApiOkResponse({ type: GroupSyncSettingsDto })
  async groupSync(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<GroupSyncSettingsDto> {
    await this.readableOrganization(principal, ref);
    return { field: '', mapping: {}, regex_filter: null, auto_create_missing_groups: false };
  }

  @Get('organizations/:organization/settings/idpsync/roles')
  @Authenticated({ tokenScope: { type: 'idpsync_settings', action: 'read' } })
  @ApiOperation({ summary: 'Role sync from the IdP: off' })
  @ApiOkResponse({ type: RoleSyncSettingsDto })
  async roleSync(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<RoleSyncSettingsDto> {
    await this.readableOrganization(principal, ref);
    return { field: '', mapping: {} };
  }

  @Get('organizations/:organization/settings/idpsync/available-fields')
  @Authenticated({ tokenScope: { type: 'idpsync_settings', action: 'read' } })
  @ApiOperation({ summary: 'IdP claim fields seen: none' })
  @ApiOkResponse({ type: [String] })
  async organizationAvailableFields(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<string[]> {
    await this.readableOrganization(principal, ref);
    return [];
  }
}

import { ActivityRecorder } from './activity-recorder.service';
import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiTokensService } from './api-tokens.service';
import { BootstrapAdminService } from './bootstrap-admin.service';
import { GiteaBlocksController } from './blocks/gitea-blocks.controller';
import { UserBlocksRepository } from './blocks/user-blocks.repository';
import { UserBlocksService } from './blocks/user-blocks.service';
import { CoderDebugController } from './controllers/coder-debug.controller';
import { CoderGroupsController } from './controllers/coder-groups.controller';
import { CoderInsightsController } from './controllers/coder-insights.controller';
import { CoderOrganizationsController } from './controllers/coder-organizations.controller';
import { CoderUsersController } from './controllers/coder-users.controller';
import { CoderSignInController } from './controllers/coder-sign-in.controller';
import { CoderOrganizationsService } from './management/coder-organizations.service';
import { CoderUsersService } from './management/coder-users.service';
import { UserStatusChartService } from './management/user-status-chart.service';
import { OidcClaimsService } from './management/oidc-claims.service';
import { GiteaOrganizationsController } from './controllers/gitea-organizations.controller';
import { GiteaUsersController } from './controllers/gitea-users.controller';
import { OcsCloudUserController } from './controllers/ocs-cloud-user.controller';
import { IDENTITY_ENTITIES } from './entities';
import { OrganizationsService } from './organizations.service';
import { OwnedResourcesRegistry } from './owned-resources.registry';
import { PasswordHasher } from './password-hasher.service';
import { UserDirectory } from './user-directory.service';
import { UsersService } from './users.service';
import { CoderUserSecretsController } from './secrets/coder-user-secrets.controller';
import { UserSecretsService } from './secrets/user-secrets.service';
import './principal-types';
import './identity.error-codes';
import { IdentityDirectory } from './identity-directory.service';
import { OidcAccountsService } from './oidc-accounts.service';
import { AccountAdministration } from './account-administration.service';
import { AccountAdminRepository } from './repositories/account-admin.repository';
import { AccountsRepository, DirectoryRepository } from './repositories/accounts.repository';
import { ActivityRepository } from './repositories/activity.repository';
import { ApiTokenLookupRepository } from './repositories/api-token-lookup.repository';
import { ApiTokensRepository } from './repositories/api-tokens.repository';
import { CoderUsersRepository } from './repositories/coder-users.repository';
import { OrganizationsRepository } from './repositories/organizations.repository';
import { UsersRepository } from './repositories/users.repository';
import { UserStatusChartRepository } from './repositories/user-status-chart.repository';
import { UserSecretsRepository } from './secrets/user-secrets.repository';
import { CoderUserSettingsController } from './settings/coder-user-settings.controller';
import { UserConfigsRepository } from './settings/user-configs.repository';
import { UserSettingsService } from './settings/user-settings.service';

/** Users, organizations, teams, API tokens and password hashing: the shared core every module may call. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(IDENTITY_ENTITIES)],
  controllers: [
    OcsCloudUserController,
    // before CoderUsersController: `users/first` and `users/authmethods` are not `users/{user}`
    CoderSignInController,
    CoderUsersController,
    CoderUserSettingsController,
    GiteaUsersController,
    GiteaOrganizationsController,
    CoderUserSecretsController,
    CoderOrganizationsController,
    CoderGroupsController,
    CoderInsightsController,
    CoderDebugController,
    GiteaBlocksController,
  ],
  providers: [
    AccountsRepository,
    ApiTokensRepository,
    UsersRepository,
    UserBlocksRepository,
    AccountAdminRepository,
    AccountAdministration,
    DirectoryRepository,
    ActivityRepository,
    ApiTokenLookupRepository,
    UserStatusChartRepository,
    UserSecretsRepository,
    UserConfigsRepository,
    UserSettingsService,
    OrganizationsRepository,
    CoderUsersRepository,
    IdentityDirectory,
    OidcAccountsService,
    ActivityRecorder,
    UsersService,
    OrganizationsService,
    ApiTokensService,
    PasswordHasher,
    UserDirectory,
    BootstrapAdminService,
    OwnedResourcesRegistry,
    UserSecretsService,
    CoderUsersService,
    CoderOrganizationsService,
    UserStatusChartService,
    OidcClaimsService,
    UserBlocksService,
  ],
  exports: [
    IdentityDirectory,
    AccountAdministration,
    OidcAccountsService,
    ActivityRecorder,
    UserBlocksService,
    UsersService,
    OrganizationsService,
    ApiTokensService,
    PasswordHasher,
    UserDirectory,
    BootstrapAdminService,
    OwnedResourcesRegistry,
    UserSecretsService,
    CoderOrganizationsService,
    UserSettingsService,
  ],
})
export class IdentityModule {}

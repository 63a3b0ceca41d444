import { ActivityRecorder } from './activity-recorder.service';
import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiTokensService } from './api-tokens.service';
import { BootstrapAdminService } from './bootstrap-admin.service';
import { GiteaBlocksController } from './blocks/gitea-blocks.controller';
import { UserBlocksService } from './blocks/user-blocks.service';
import { CoderDebugController } from './controllers/coder-debug.controller';
import { CoderGroupsController } from './controllers/coder-groups.controller';
import { CoderInsightsController } from './controllers/coder-insights.controller';
import { CoderOrganizationsController } from './controllers/coder-organizations.controller';
import { CoderUsersController } from './controllers/coder-users.controller';
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

/** Users, organizations, teams, API tokens and password hashing: the shared core every module may call. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(IDENTITY_ENTITIES)],
  controllers: [
    OcsCloudUserController,
    CoderUsersController,
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
    TypeOrmModule,
  ],
})
export class IdentityModule {}

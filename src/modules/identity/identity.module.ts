import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiTokensService } from './api-tokens.service';
import { BootstrapAdminService } from './bootstrap-admin.service';
import { CoderUsersController } from './controllers/coder-users.controller';
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
  ],
  providers: [
    UsersService,
    OrganizationsService,
    ApiTokensService,
    PasswordHasher,
    UserDirectory,
    BootstrapAdminService,
    OwnedResourcesRegistry,
    UserSecretsService,
  ],
  exports: [
    UsersService,
    OrganizationsService,
    ApiTokensService,
    PasswordHasher,
    UserDirectory,
    BootstrapAdminService,
    OwnedResourcesRegistry,
    UserSecretsService,
    TypeOrmModule,
  ],
})
export class IdentityModule {}

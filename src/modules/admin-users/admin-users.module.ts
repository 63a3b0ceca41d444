import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminPolicyService } from './admin-policy.service';
import { AdminUsersRepository } from './admin-users.repository';
import { AdminUsersService } from './admin-users.service';
import { AdminUsersController } from './controllers/admin-users.controller';
import { UserKeysController } from './controllers/user-keys.controller';
import { ADMIN_USERS_ENTITIES } from './entities';
import { MustChangePasswordListener } from './must-change-password.listener';
import { GiteaPasswordPolicy } from './password-policy.service';
import { PublicKeysRepository } from './public-keys.repository';
import { PublicKeysService } from './public-keys.service';
import './admin-users.error-codes';

/**
 * Gitea-dialect administrator user management (spec 3): search, create, edit, delete, rename,
 * SSH public keys, and the administrator management policy. See README.md.
 */
@Module({
  imports: [TypeOrmModule.forFeature(ADMIN_USERS_ENTITIES)],
  controllers: [AdminUsersController, UserKeysController],
  providers: [
    AdminUsersRepository,
    PublicKeysRepository,
    AdminUsersService,
    AdminPolicyService,
    GiteaPasswordPolicy,
    PublicKeysService,
    MustChangePasswordListener,
  ],
  exports: [AdminPolicyService, GiteaPasswordPolicy, PublicKeysService],
})
export class AdminUsersModule {}

import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type AppConfig, ConfigError } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { validatePasswordStrength } from '../auth/password-strength';
import { randomString } from './api-token-codec';
import type { User } from './entities/user.entity';
import { UsersService } from './users.service';

export interface CreateAdminInput {
  username: string;
  email: string;
  password?: string;
}

/**
 * The bootstrap administrator: Coder's site `owner` and a Gitea site administrator, active at
 * once, holding the bootstrap grant. Created at first start when there are no users, or by the CLI.
 */
@Injectable()
export class BootstrapAdminService implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapAdminService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.bootstrapAdminOnStart || (await this.users.countIndividuals()) > 0) return;
    const weak = this.config.admin.password === undefined ? null : validatePasswordStrength(this.config.admin.password);
    if (weak && !weak.valid) {
      // The entropy rule guards every stored password; a weak ADMIN_PASSWORD stops the first start.
      throw new ConfigError('ADMIN_PASSWORD', `is too weak: ${weak.details}`);
    }
    const { user, password, generated } = await this.createAdmin(this.config.admin);
    if (generated) {
      // Printed once, on stdout, so the operator can sign in; it is never stored in clear.
      process.stdout.write(
        `\nBootstrap administrator created.\n  username: ${user.name}\n  email:    ${user.email}\n  password: ${password}\n` +
          'Keep this password: it is not shown again.\n\n',
      );
    } else {
      this.logger.log(`Bootstrap administrator "${user.name}" created from ADMIN_* settings`);
    }
  }

  async createAdmin(input: CreateAdminInput): Promise<{ user: User; password: string; generated: boolean }> {
    const generated = input.password === undefined;
    const password = input.password ?? randomString(20);
    const isFirstAdmin = (await this.users.countIndividuals()) === 0;
    const user = await this.users.create({
      username: input.username,
      email: input.email,
      password,
      isAdmin: true,
      siteRoles: ['owner'],
      hasBootstrapGrant: isFirstAdmin,
      isSuperAdmin: isFirstAdmin && this.config.superAdminEnabled,
      mustChangePassword: false,
    });
    return { user, password, generated };
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AppConfig, ConfigError } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import { validatePasswordStrength } from './password-strength';
import { randomString } from './api-token-codec';
import type { User } from './entities/user.entity';
import { AccountsRepository } from './repositories/accounts.repository';
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
export class BootstrapAdminService {
  private readonly logger = new Logger(BootstrapAdminService.name);
  /** Once true, stays true (readiness polls it). */
  private done = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly transactions: TransactionRunner,
    private readonly accounts: AccountsRepository,
  ) {}

  /**
   * Creates the first administrator on an empty database. Called by the server once it listens (a
   * start that fails earlier, a port already taken, creates nobody and loses no password), and by
   * the test harness. Returns the generated password for the start-up banner, or null.
   */
  async ensure(): Promise<{ username: string; email: string; password: string } | null> {
    if (!this.config.bootstrapAdminOnStart || (await this.users.countIndividuals()) > 0) return null;
    const weak =
      this.config.admin.password === undefined ? null : validatePasswordStrength(this.config.admin.password);
    if (weak && !weak.valid) {
      // The entropy rule guards every stored password; a weak ADMIN_PASSWORD stops the first start.
      throw new ConfigError('ADMIN_PASSWORD', `is too weak: ${weak.details}`);
    }
    // Instances started together on an empty database: one creates the administrator, under a
    // transaction-scoped advisory lock; the others find it there and do nothing.
    const created = await this.transactions.run(async (tx) => {
      await this.accounts.lockBootstrap(tx.manager);
      if ((await this.accounts.countIndividuals(tx.manager)) > 0) return null;
      return this.createAdmin(this.config.admin, tx);
    });
    if (!created) return null;
    const { user, password, generated } = created;
    if (generated) return { username: user.name, email: user.email, password };
    this.logger.log(`Bootstrap administrator "${user.name}" created from ADMIN_* settings`);
    return null;
  }

  /**
   * Readiness (`/readyz`, issue 31.13): false while this instance is to create the first
   * administrator and no user exists yet, so a probe never lets a client sign in with the
   * configured admin credentials before the account is there.
   */
  async bootstrapDone(): Promise<boolean> {
    if (this.done) return true;
    this.done = !this.config.bootstrapAdminOnStart || (await this.users.countIndividuals()) > 0;
    return this.done;
  }

  async createAdmin(
    input: CreateAdminInput,
    tx?: Transaction,
  ): Promise<{ user: User; password: string; generated: boolean }> {
    const generated = input.password === undefined;
    const password = input.password ?? randomString(20);
    const isFirstAdmin = tx
      ? (await this.accounts.countIndividuals(tx.manager)) === 0
      : (await this.users.countIndividuals()) === 0;
    const user = await this.users.create(
      {
        username: input.username,
        email: input.email,
        password,
        isAdmin: true,
        siteRoles: ['owner'],
        hasBootstrapGrant: isFirstAdmin,
        isSuperAdmin: isFirstAdmin && this.config.superAdminEnabled,
        mustChangePassword: false,
      },
      tx,
    );
    return { user, password, generated };
  }
}

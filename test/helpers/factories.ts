import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiTokensService } from '../../src/modules/identity/api-tokens.service';
import type { User } from '../../src/modules/identity/entities/user.entity';
import { OrganizationsService } from '../../src/modules/identity/organizations.service';
import { type CreateUserInput, UsersService } from '../../src/modules/identity/users.service';

export interface CreatedUser {
  user: User;
  password: string;
  /** An API token of the user with scope `all`. */
  token: string;
}

/** Test data through the real services (real hashing, real transactions, real events). */
export class Factories {
  constructor(private readonly app: INestApplication) {}

  private unique(prefix: string): string {
    return `${prefix}${randomBytes(4).toString('hex')}`;
  }

  async user(overrides: Partial<CreateUserInput> = {}): Promise<CreatedUser> {
    const username = overrides.username ?? this.unique('user');
    const password = overrides.password ?? `Pw-${randomBytes(8).toString('hex')}`;
    const user = await this.app.get(UsersService).create({
      username,
      email: overrides.email ?? `${username}@example.com`,
      ...overrides,
      password,
    });
    const token = await this.token(user);
    return { user, password, token };
  }

  async admin(overrides: Partial<CreateUserInput> = {}): Promise<CreatedUser> {
    return this.user({ isAdmin: true, siteRoles: ['owner'], ...overrides });
  }

  async token(
    user: User,
    options: {
      scopes?: string[];
      lifetimeSeconds?: number;
      loginType?: 'token' | 'password';
      name?: string;
    } = {},
  ): Promise<string> {
    const created = await this.app.get(ApiTokensService).create({
      userId: user.id,
      name: options.name,
      scopes: options.scopes ?? ['all'],
      lifetimeSeconds: options.lifetimeSeconds ?? 7 * 86_400,
      loginType: options.loginType ?? 'token',
    });
    return created.key;
  }

  async organization(name = this.unique('org'), ownerId?: string): Promise<User> {
    return this.app.get(OrganizationsService).create({ name, ownerId });
  }

  async team(organization: User, name = this.unique('team'), members: User[] = []) {
    const organizations = this.app.get(OrganizationsService);
    const team = await organizations.createTeam(organization.id, name);
    for (const member of members) await organizations.addTeamMember(team.id, member.id);
    return team;
  }
}

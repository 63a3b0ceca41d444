import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { User } from './entities/user.entity';
import { AccountsRepository } from './repositories/accounts.repository';

/**
 * The account side of OIDC sign-in (auth/oidc runs the flow): the linked or matching account, login
 * conversion, activation and the stored link. Every method runs in the sign-in's transaction.
 */
@Injectable()
export class OidcAccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  /** The account linked to `(issuer, subject)`, else the individual with this email. */
  async findForSignIn(
    issuer: string,
    subject: string,
    email: string,
    manager: EntityManager,
  ): Promise<User | null> {
    const link = await this.accounts.findOidcLink(issuer, subject, manager);
    return (
      (link ? await this.accounts.findUser(link.userId, manager) : null) ??
      (await this.accounts.findIndividualByEmail(email, manager))
    );
  }

  requireUser(id: string, manager: EntityManager): Promise<User> {
    return this.accounts.findUserOrFail(id, manager);
  }

  async convertToOidc(userId: string, manager: EntityManager): Promise<void> {
    await this.accounts.updateUser(userId, { loginType: 'oidc' }, manager);
  }

  async activate(userId: string, manager: EntityManager): Promise<void> {
    await this.accounts.updateUser(userId, { status: 'active' }, manager);
  }

  async saveLink(
    link: {
      userId: string;
      issuer: string;
      subject: string;
      idTokenClaims: Record<string, unknown>;
      userinfoClaims: Record<string, unknown>;
    },
    manager: EntityManager,
  ): Promise<void> {
    await this.accounts.saveOidcLink(link, manager);
  }
}

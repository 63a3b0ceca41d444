import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { User } from './entities/user.entity';
import { AccountAdminRepository, type IndividualSearch } from './repositories/account-admin.repository';

export type { IndividualSearch } from './repositories/account-admin.repository';

/**
 * The account writes and reads of site administration (admin-users, Gitea's `/admin/users`): search,
 * edits, deletion and the administrator grant graph, on identity's tables. Methods that run inside
 * the caller's transaction take its manager.
 */
@Injectable()
export class AccountAdministration {
  constructor(private readonly rows: AccountAdminRepository) {}

  searchIndividuals(search: IndividualSearch): Promise<{ users: User[]; total: number }> {
    return this.rows.searchIndividuals(search);
  }

  /** A user or organization by name, case-insensitively. */
  findByName(name: string): Promise<User | null> {
    return this.rows.findByLowerName(name.toLowerCase());
  }

  /** The account holding this email (any case). */
  findByEmail(email: string): Promise<User | null> {
    return this.rows.findByLowerEmail(email.toLowerCase());
  }

  findById(id: string, manager?: EntityManager): Promise<User | null> {
    return this.rows.findById(id, manager);
  }

  reload(id: string): Promise<User> {
    return this.rows.findByIdOrFail(id);
  }

  /** Sets the creation time of a new account (Gitea's `created_at` on create). */
  backdate(userId: string, at: Date, manager: EntityManager): Promise<void> {
    return this.rows.backdate(userId, at, manager);
  }

  update(userId: string, changes: Partial<User>, manager: EntityManager): Promise<void> {
    return this.rows.update(userId, changes, manager);
  }

  /** Clears `must_change_password` if it is set. */
  clearMustChangePassword(userId: string): Promise<void> {
    return this.rows.clearMustChangePassword(userId);
  }

  /** Ends the user's browser sessions (login type password); API tokens stay. */
  endPasswordSessions(userId: string, manager: EntityManager): Promise<void> {
    return this.rows.deletePasswordSessions(userId, manager);
  }

  /** Deletes the account row; tokens, keys, memberships and team memberships cascade. */
  deleteAccount(userId: string, manager: EntityManager): Promise<void> {
    return this.rows.deleteAccount(userId, manager);
  }

  /** Administrators among individual accounts (Gitea IsLastAdminUser counts every admin). */
  countAdmins(manager: EntityManager): Promise<number> {
    return this.rows.countAdmins(manager);
  }

  countSuperAdmins(manager: EntityManager): Promise<number> {
    return this.rows.countSuperAdmins(manager);
  }

  /** The grant fields of an account (administrator management policy), or null. */
  grantNode(
    id: string,
    manager: EntityManager,
  ): Promise<Pick<User, 'id' | 'isAdmin' | 'adminGrantedBy' | 'type'> | null> {
    return this.rows.grantNode(id, manager);
  }

  /** Non-default organizations the user owns. */
  countOwnedOrganizations(userId: string, manager: EntityManager): Promise<number> {
    return this.rows.countOwnedOrganizations(userId, manager);
  }

  /** Organizations the user alone owns are deleted; the user's other memberships end. */
  purgeOwnedOrganizations(userId: string, manager: EntityManager): Promise<void> {
    return this.rows.purgeOwnedOrganizations(userId, manager);
  }
}

import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { User } from './entities/user.entity';
import {
  type AccountNameRow,
  AccountsRepository,
  DirectoryRepository,
  type LiveTokenRow,
  type LoginStateRow,
  type SubjectMembershipRow,
} from './repositories/accounts.repository';

/** An account's ids and names (what lists show for an owner, author or actor). */
export interface AccountName {
  id: string;
  uuid: string;
  name: string;
  fullName: string;
  avatarUrl: string;
}

function accountName(row: AccountNameRow): AccountName {
  return { id: row.id, uuid: row.uuid, name: row.name, fullName: row.full_name, avatarUrl: row.avatar_url };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An individual user's address and names. */
export interface AccountContact {
  id: string;
  uuid: string;
  email: string;
  name: string;
  fullName: string;
}

/** A member of an organization with the explicitly assigned organization roles. */
export interface OrganizationMemberRef {
  userId: string;
  roles: string[];
}

/**
 * Identity's read API for other modules (issue 32 item 2): they ask here instead of joining
 * `users`, `organizations`, `organization_members`, `teams`, `team_members` or `api_tokens`.
 * See README.md, "Reading accounts from other modules".
 */
@Injectable()
export class IdentityDirectory {
  constructor(
    private readonly directory: DirectoryRepository,
    private readonly accounts: AccountsRepository,
  ) {}

  /**
   * Id → names of the accounts (users and organizations) that exist; unknown ids are absent. Pass the
   * caller's transaction when it is open (embedded PGlite has one connection).
   */
  async namesByIds(ids: readonly string[], manager?: EntityManager): Promise<Map<string, AccountName>> {
    const unique = [...new Set(ids)].filter((id) => /^\d+$/.test(id));
    if (unique.length === 0) return new Map();
    const rows = await this.directory.namesByIds(unique, manager);
    return new Map(rows.map((row) => [row.id, accountName(row)]));
  }

  /** Uuid → names of the accounts that exist (Coder ids); unknown or malformed uuids are absent. */
  async namesByUuids(uuids: readonly string[], manager?: EntityManager): Promise<Map<string, AccountName>> {
    const unique = [...new Set(uuids)].filter((uuid) => UUID.test(uuid));
    if (unique.length === 0) return new Map();
    const rows = await this.directory.namesByUuids(unique, manager);
    return new Map(rows.map((row) => [row.uuid, accountName(row)]));
  }

  /**
   * An individual user's contact (notification recipients), or undefined for an organization or an
   * unknown id. Pass the caller's transaction when the user may have been created in it.
   */
  async contactOf(userId: string, manager?: EntityManager): Promise<AccountContact | undefined> {
    if (!/^\d+$/.test(userId)) return undefined;
    const row = await this.directory.individual(userId, manager);
    return row && { id: row.id, uuid: row.uuid, email: row.email, name: row.name, fullName: row.full_name };
  }

  /** Active owners and user-admins (Coder notifies both roles of account events), ids ascending. */
  activeAccountAdminIds(): Promise<string[]> {
    return this.directory.activeAccountAdminIds();
  }

  /** The uuids of the accounts `ref` names: by uuid, or by name case-insensitively (none, one or two). */
  async accountUuidsByRef(ref: string): Promise<string[]> {
    const byUuid = [...(await this.namesByUuids([ref])).keys()];
    const byName = [...(await this.namesByIds(await this.accountIdsByName(ref))).values()].map((a) => a.uuid);
    return [...new Set([...byUuid, ...byName])];
  }

  /** An organization's workspace sharing mode (`everyone`, `service_accounts`, `none`); undefined when unknown. */
  async workspaceSharingModeOf(organizationUuid: string): Promise<string | undefined> {
    return UUID.test(organizationUuid) ? this.directory.workspaceSharingMode(organizationUuid) : undefined;
  }

  /** Teams (Coder groups) that exist, by uuid: their names. */
  async teamNamesByUuids(uuids: readonly string[]): Promise<{ uuid: string; name: string }[]> {
    const unique = [...new Set(uuids)].filter((uuid) => UUID.test(uuid));
    return unique.length === 0 ? [] : this.directory.teamNamesByUuids(unique);
  }

  /** Account names by lower-cased email (emails nobody uses are absent). */
  async namesByEmails(emails: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(emails.map((email) => email.toLowerCase()).filter(Boolean))];
    if (wanted.length === 0) return new Map();
    const rows = await this.directory.namesByLowerEmails(wanted);
    return new Map(rows.map((row) => [row.lower_email, row.name]));
  }

  /** Ids of the accounts named `name` (case-insensitive; none or one). */
  accountIdsByName(name: string): Promise<string[]> {
    return this.directory.idsByLowerName(name.toLowerCase());
  }

  /** Ids of the accounts whose email is `email` (case-insensitive). */
  accountIdsByEmail(email: string): Promise<string[]> {
    return this.directory.idsByLowerEmail(email.toLowerCase());
  }

  /** The uuids of the organizations the user (numeric id) is a member of. */
  organizationUuidsOf(userId: string): Promise<string[]> {
    return this.directory.organizationUuidsOf(userId);
  }

  /** Id → account, for the ids that exist. */
  async usersByIds(ids: readonly string[]): Promise<Map<string, User>> {
    const unique = [...new Set(ids)].filter((id) => /^\d+$/.test(id));
    if (unique.length === 0) return new Map();
    const users = await this.directory.usersByIds(unique);
    return new Map(users.map((user) => [user.id, user]));
  }

  /** Uuid → account, for the uuids that exist. */
  async usersByUuids(uuids: readonly string[], manager?: EntityManager): Promise<Map<string, User>> {
    const unique = [...new Set(uuids)].filter((uuid) => UUID.test(uuid));
    if (unique.length === 0) return new Map();
    const users = await this.directory.usersByUuids(unique, manager);
    return new Map(users.map((user) => [user.uuid, user]));
  }

  /** The members of an organization (its account id), by user id. */
  async membersOf(organizationId: string): Promise<OrganizationMemberRef[]> {
    const rows = await this.directory.membersOf(organizationId);
    return rows.map((row) => ({ userId: row.user_id, roles: row.roles ?? [] }));
  }

  /** Status and login ban of these users (realtime connections recheck them). */
  loginStates(userIds: string[]): Promise<LoginStateRow[]> {
    return this.accounts.loginStates(userIds);
  }

  /** Which of these tokens are unexpired, with their user. */
  liveTokens(tokenIds: string[]): Promise<LiveTokenRow[]> {
    return this.accounts.liveTokens(tokenIds);
  }

  /** The user's organization memberships with each organization's uuid and sharing mode (RBAC subjects). */
  subjectMemberships(userId: string): Promise<SubjectMembershipRow[]> {
    return this.accounts.subjectMemberships(userId);
  }
}

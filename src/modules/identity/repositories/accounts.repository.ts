import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { ApiToken } from '../entities/api-token.entity';
import type { WorkspaceSharingMode } from '../entities/organization.entity';
import { UserOidcLink } from '../entities/user-oidc-link.entity';
import { User } from '../entities/user.entity';

/** A user's sign-in state, as realtime connections recheck it. */
export interface LoginStateRow {
  id: string;
  status: string;
  prohibit_login: boolean;
}

/** An organization membership with what RBAC needs of the organization. */
export interface SubjectMembershipRow {
  org_id: string;
  org_uuid: string;
  roles: string[] | null;
  sharing_mode: WorkspaceSharingMode;
}

/** An account's names (IdentityDirectory.namesByIds / namesByUuids). */
export interface AccountNameRow {
  id: string;
  uuid: string;
  name: string;
  full_name: string;
  avatar_url: string;
}

/** A live (unexpired) token and its user. */
export interface LiveTokenRow {
  id: string;
  user_id: string;
}

/**
 * The SQL on identity's account tables that other modules' flows need (sign-in, password changes,
 * realtime rechecks, RBAC subjects). Methods that run inside a caller's transaction take its manager.
 */
@Injectable()
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A raw update: a login must not move updated_at. Without `at`, the database's now(). */
  async recordLogin(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
    at?: Date,
  ): Promise<void> {
    if (at) await manager.query('UPDATE users SET last_login_at = $1 WHERE id = $2', [at, userId]);
    else await manager.query('UPDATE users SET last_login_at = now() WHERE id = $1', [userId]);
  }

  async setPasswordHash(
    userId: string,
    passwordHash: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query('UPDATE users SET password_hash = $1, updated_at = now() WHERE id = $2', [
      passwordHash,
      userId,
    ]);
  }

  async deleteApplicationConnectTokens(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      `DELETE FROM api_tokens WHERE user_id = $1 AND ('coder:application_connect' = ANY(scopes) OR 'application_connect' = ANY(scopes))`,
      [userId],
    );
  }

  loginStates(userIds: string[]): Promise<LoginStateRow[]> {
    return this.dataSource.query(
      'SELECT id::text AS id, status, prohibit_login FROM users WHERE id = ANY($1::bigint[])',
      [userIds],
    );
  }

  liveTokens(tokenIds: string[]): Promise<LiveTokenRow[]> {
    return this.dataSource.query(
      'SELECT id, user_id::text AS user_id FROM api_tokens WHERE id = ANY($1::varchar[]) AND expires_at > now()',
      [tokenIds],
    );
  }

  async subjectMemberships(userId: string): Promise<SubjectMembershipRow[]> {
    const result: { memberships: SubjectMembershipRow[] }[] = await this.dataSource.query(
      `SELECT COALESCE((SELECT json_agg(json_build_object('org_id', m.organization_id::text, 'org_uuid', a.uuid,
                                                          'roles', m.roles, 'sharing_mode', o.workspace_sharing_mode))
                          FROM organization_members m
                          JOIN users a ON a.id = m.organization_id
                          JOIN organizations o ON o.account_id = m.organization_id
                         WHERE m.user_id = $1), '[]'::json) AS memberships`,
      [userId],
    );
    return result[0]?.memberships ?? [];
  }

  /** Instances started together on an empty database: the first administrator is created under this lock. */
  async lockBootstrap(manager: EntityManager): Promise<void> {
    await manager.query("SELECT pg_advisory_xact_lock(hashtext('devplane:bootstrap:' || current_schema()))");
  }

  countIndividuals(manager: EntityManager = this.dataSource.manager): Promise<number> {
    return manager.getRepository(User).countBy({ type: 'individual' });
  }

  /** The group names of `OrganizationsService.groupsOf`: organizations, `org/team`, and `admin`. */
  async groupNames(userId: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows: { g: string }[] = await manager.query(
      `SELECT o.lower_name AS g FROM organization_members m JOIN users o ON o.id = m.organization_id
        WHERE m.user_id = $1 AND o.type = 'organization'
       UNION SELECT o.lower_name || '/' || t.lower_name FROM team_members tm JOIN teams t ON t.id = tm.team_id
         JOIN users o ON o.id = t.organization_id WHERE tm.user_id = $1
       UNION SELECT 'admin' FROM users WHERE id = $1 AND is_admin`,
      [userId],
    );
    return rows.map((row) => row.g);
  }

  // ---------------------------------------------------------------------------------- Coder API keys

  tokenNameTaken(userId: string, name: string): Promise<boolean> {
    return this.dataSource.getRepository(ApiToken).existsBy({ userId, name });
  }

  /** Programmatic keys (login type `token`) with their owners, oldest first; all users' when userId is null. */
  listProgrammaticTokens(userId: string | null): Promise<ApiToken[]> {
    return this.dataSource.getRepository(ApiToken).find({
      where: { loginType: 'token', ...(userId === null ? {} : { userId }) },
      relations: { user: true },
      order: { createdAt: 'ASC' },
    });
  }

  findProgrammaticTokenByName(userId: string, name: string): Promise<ApiToken | null> {
    return this.dataSource.getRepository(ApiToken).findOne({
      where: { userId, name, loginType: 'token' },
      relations: { user: true },
    });
  }

  findTokenWithOwner(id: string): Promise<ApiToken | null> {
    return this.dataSource.getRepository(ApiToken).findOne({ where: { id }, relations: { user: true } });
  }

  // ------------------------------------------------------------------------------------ OIDC sign-in

  findOidcLinkOf(userId: string): Promise<UserOidcLink | null> {
    return this.dataSource.getRepository(UserOidcLink).findOneBy({ userId });
  }

  findOidcLink(issuer: string, subject: string, manager: EntityManager): Promise<UserOidcLink | null> {
    return manager.getRepository(UserOidcLink).findOneBy({ issuer, subject });
  }

  findUser(id: string, manager: EntityManager): Promise<User | null> {
    return manager.getRepository(User).findOneBy({ id });
  }

  findUserOrFail(id: string, manager: EntityManager): Promise<User> {
    return manager.getRepository(User).findOneByOrFail({ id });
  }

  findIndividualByEmail(email: string, manager: EntityManager): Promise<User | null> {
    return manager.getRepository(User).findOneBy({ lowerEmail: email.toLowerCase(), type: 'individual' });
  }

  async updateUser(id: string, changes: Partial<User>, manager: EntityManager): Promise<void> {
    await manager.getRepository(User).update({ id }, changes);
  }

  async saveOidcLink(
    link: Pick<UserOidcLink, 'userId' | 'issuer' | 'subject' | 'idTokenClaims' | 'userinfoClaims'>,
    manager: EntityManager,
  ): Promise<void> {
    await manager
      .getRepository(UserOidcLink)
      .upsert(
        { ...link, idTokenClaims: link.idTokenClaims as never, userinfoClaims: link.userinfoClaims as never },
        ['userId'],
      );
  }
}

export interface AccountContactRow {
  id: string;
  uuid: string;
  email: string;
  name: string;
  full_name: string;
}

/** The reads of IdentityDirectory (other modules' joins on identity's tables go through them). */
@Injectable()
export class DirectoryRepository {
  constructor(private readonly dataSource: DataSource) {}

  usersByIds(ids: string[]): Promise<User[]> {
    return this.dataSource.getRepository(User).find({ where: { id: In(ids) } });
  }

  usersByUuids(uuids: string[], manager: EntityManager = this.dataSource.manager): Promise<User[]> {
    return manager.getRepository(User).find({ where: { uuid: In(uuids) } });
  }

  namesByIds(ids: string[], manager: EntityManager = this.dataSource.manager): Promise<AccountNameRow[]> {
    return manager.query(
      `SELECT id::text AS id, uuid::text AS uuid, name, full_name, avatar_url FROM users WHERE id = ANY($1::bigint[])`,
      [ids],
    );
  }

  namesByUuids(uuids: string[], manager: EntityManager = this.dataSource.manager): Promise<AccountNameRow[]> {
    return manager.query(
      `SELECT id::text AS id, uuid::text AS uuid, name, full_name, avatar_url FROM users WHERE uuid = ANY($1::uuid[])`,
      [uuids],
    );
  }

  /** An individual user's contact columns by numeric id, in the caller's transaction when given. */
  async individual(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<AccountContactRow | undefined> {
    const rows: AccountContactRow[] = await manager.query(
      `SELECT id::text AS id, uuid::text AS uuid, email, name, full_name FROM users WHERE id = $1 AND type = 'individual'`,
      [userId],
    );
    return rows[0];
  }

  /** Active owners and user-admins, ids ascending. */
  async activeAccountAdminIds(): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id::text AS id FROM users WHERE type = 'individual' AND status = 'active'
          AND (is_admin OR 'owner' = ANY(site_roles) OR 'user-admin' = ANY(site_roles))
        ORDER BY id`,
    );
    return rows.map((row) => row.id);
  }

  /** Names of the accounts with these lower-cased emails: lower email → name. */
  namesByLowerEmails(lowerEmails: string[]): Promise<{ lower_email: string; name: string }[]> {
    return this.dataSource.query('SELECT lower_email, name FROM users WHERE lower_email = ANY($1::text[])', [
      lowerEmails,
    ]);
  }

  /** Ids of the accounts with this lower-cased name (user or organization). */
  async idsByLowerName(lowerName: string): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      'SELECT id::text AS id FROM users WHERE lower_name = $1',
      [lowerName],
    );
    return rows.map((row) => row.id);
  }

  /** Ids of the accounts with this lower-cased email. */
  async idsByLowerEmail(lowerEmail: string): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      'SELECT id::text AS id FROM users WHERE lower_email = $1',
      [lowerEmail],
    );
    return rows.map((row) => row.id);
  }

  /** Teams (Coder groups) by uuid: uuid and name. */
  teamNamesByUuids(uuids: string[]): Promise<{ uuid: string; name: string }[]> {
    return this.dataSource.query('SELECT uuid::text AS uuid, name FROM teams WHERE uuid = ANY($1::uuid[])', [
      uuids,
    ]);
  }

  /** An organization's workspace sharing mode by the organization's uuid. */
  async workspaceSharingMode(organizationUuid: string): Promise<string | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT o.workspace_sharing_mode AS mode FROM organizations o JOIN users a ON a.id = o.account_id
        WHERE a.uuid = $1`,
      [organizationUuid],
    )) as { mode: string }[];
    return row?.mode;
  }

  /** The uuids of the organizations the user is a member of. */
  async organizationUuidsOf(userId: string): Promise<string[]> {
    const rows: { uuid: string }[] = await this.dataSource.query(
      'SELECT o.uuid::text AS uuid FROM organization_members m JOIN users o ON o.id = m.organization_id WHERE m.user_id = $1',
      [userId],
    );
    return rows.map((row) => row.uuid);
  }

  membersOf(organizationId: string): Promise<{ user_id: string; roles: string[] | null }[]> {
    return this.dataSource.query(
      `SELECT m.user_id::text AS user_id, m.roles FROM organization_members m
        WHERE m.organization_id = $1 ORDER BY m.user_id`,
      [organizationId],
    );
  }
}

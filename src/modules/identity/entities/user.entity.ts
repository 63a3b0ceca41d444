import {
  Column,
  CreateDateColumn,
  Entity,
  Generated,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type AccountType = 'individual' | 'organization';
export type LoginType = 'password' | 'github' | 'oidc' | 'token' | 'none';
export type UserStatus = 'active' | 'suspended' | 'dormant';
export type Visibility = 'public' | 'limited' | 'private';

export const LOGIN_TYPES: readonly LoginType[] = ['password', 'github', 'oidc', 'token', 'none'];
export const VISIBILITIES: readonly Visibility[] = ['public', 'limited', 'private'];

/**
 * An account: an individual user or an organization. Both share one table (as in Gitea) so
 * user names and organization names share one case-insensitive namespace (`lower_name`),
 * and repositories and packages can be owned by either through one foreign key.
 * Coder's dialect addresses accounts by `uuid`, Gitea's by the numeric `id`.
 */
@Entity({ name: 'users' })
@Index('IDX_users_lower_email', ['lowerEmail'], { unique: true, where: `"lower_email" <> ''` })
@Index('IDX_users_type_id', ['type', 'id'])
export class User {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'uuid', unique: true })
  @Generated('uuid')
  uuid: string;

  @Column({ type: 'varchar', length: 16, default: 'individual' })
  type: AccountType;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 255, unique: true })
  lowerName: string;

  @Column({ type: 'varchar', length: 254, default: '' })
  email: string;

  @Column({ name: 'lower_email', type: 'varchar', length: 254, default: '' })
  lowerEmail: string;

  @Column({ name: 'keep_email_private', type: 'boolean', default: false })
  keepEmailPrivate: boolean;

  @Column({ name: 'full_name', type: 'varchar', length: 255, default: '' })
  fullName: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true })
  passwordHash: string | null;

  @Column({ name: 'login_type', type: 'varchar', length: 16, default: 'password' })
  loginType: LoginType;

  /** Gitea: identifier at the external authentication source. */
  @Column({ name: 'login_name', type: 'varchar', length: 255, default: '' })
  loginName: string;

  /** Gitea: authentication source id, 0 = local. */
  @Column({ name: 'login_source', type: 'bigint', default: 0 })
  loginSource: string;

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status: UserStatus;

  @Column({ name: 'is_admin', type: 'boolean', default: false })
  isAdmin: boolean;

  @Column({ name: 'is_super_admin', type: 'boolean', default: false })
  isSuperAdmin: boolean;

  /** Coder site roles beyond the implicit `member` (`owner`, `auditor`, `template-admin`, `user-admin`). */
  @Column({ name: 'site_roles', type: 'text', array: true, default: () => "'{}'" })
  siteRoles: string[];

  /** Who granted the admin flag (administrator management policy, spec 3). */
  @Column({ name: 'admin_granted_by', type: 'bigint', nullable: true })
  adminGrantedBy: string | null;

  /** The first administrator holds the bootstrap grant and cannot be deleted or demoted by others. */
  @Column({ name: 'has_bootstrap_grant', type: 'boolean', default: false })
  hasBootstrapGrant: boolean;

  @Column({ type: 'boolean', default: false })
  restricted: boolean;

  @Column({ name: 'prohibit_login', type: 'boolean', default: false })
  prohibitLogin: boolean;

  @Column({ name: 'must_change_password', type: 'boolean', default: false })
  mustChangePassword: boolean;

  @Column({ type: 'varchar', length: 16, default: 'public' })
  visibility: Visibility;

  @Column({ name: 'is_service_account', type: 'boolean', default: false })
  isServiceAccount: boolean;

  @Column({ type: 'varchar', length: 255, default: '' })
  website: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  location: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  description: string;

  @Column({ name: 'avatar_url', type: 'varchar', length: 2048, default: '' })
  avatarUrl: string;

  @Column({ type: 'varchar', length: 16, default: '' })
  language: string;

  /** Gitea: -1 = the global default. */
  @Column({ name: 'max_repo_creation', type: 'integer', default: -1 })
  maxRepoCreation: number;

  @Column({ name: 'allow_git_hook', type: 'boolean', default: false })
  allowGitHook: boolean;

  @Column({ name: 'allow_import_local', type: 'boolean', default: false })
  allowImportLocal: boolean;

  @Column({ name: 'allow_create_organization', type: 'boolean', default: true })
  allowCreateOrganization: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz', nullable: true })
  lastSeenAt: Date | null;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt: Date | null;
}

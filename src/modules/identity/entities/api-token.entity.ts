import {
  Column,
  CreateDateColumn,
  Entity,
  Generated,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import type { LoginType } from './user.entity';
import { User } from './user.entity';

/**
 * An API key: `<10-char id>-<22-char secret>`. Only SHA-256(secret) is stored. Login sessions are
 * API keys too (login_type `password`, sliding expiry); programmatic tokens have login_type `token`.
 */
@Entity({ name: 'api_tokens' })
@Index('IDX_api_tokens_user_name', ['userId', 'name'], { unique: true })
export class ApiToken {
  @PrimaryColumn({ type: 'varchar', length: 10 })
  id: string;

  /**
   * Gitea's AccessToken id is an int64 (`/api/v1/users/{name}/tokens`): a serial number beside the
   * 10-character key id the secret is looked up by.
   */
  @Column({ name: 'numeric_id', type: 'bigint', unique: true })
  @Generated('increment')
  numericId: string;

  @Column({ name: 'hashed_secret', type: 'bytea' })
  hashedSecret: Buffer;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'text', array: true, default: () => "'{all}'" })
  scopes: string[];

  @Column({ name: 'login_type', type: 'varchar', length: 16, default: 'token' })
  loginType: LoginType;

  @Column({ name: 'lifetime_seconds', type: 'bigint' })
  lifetimeSeconds: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'ip_address', type: 'varchar', length: 64, default: '' })
  ipAddress: string;

  /** Nextcloud-style password confirmation for cookie sessions (set at login and by /login/confirm). */
  @Column({ name: 'password_confirmed_at', type: 'timestamptz', nullable: true })
  passwordConfirmedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

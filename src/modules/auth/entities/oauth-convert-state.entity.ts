import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import type { LoginType } from '../../identity/entities/user.entity';

/** A pending login conversion (password → github|oidc), completed later by the OAuth callback. */
@Entity({ name: 'auth_oauth_convert_states' })
@Index('IDX_auth_oauth_convert_states_user', ['userId'])
export class OAuthConvertState {
  /** `convert-` + 32 alphanumerics. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  state: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  @Column({ name: 'from_login_type', type: 'varchar', length: 16 })
  fromLoginType: LoginType;

  @Column({ name: 'to_login_type', type: 'varchar', length: 16 })
  toLoginType: LoginType;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

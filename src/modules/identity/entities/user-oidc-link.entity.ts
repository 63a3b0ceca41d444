import {
  Column,
  Entity,
  Index,
  JoinColumn,
  OneToOne,
  PrimaryColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { User } from './user.entity';

/**
 * A user's link to the OIDC provider (Coder's `user_links` row for login type `oidc`): the subject
 * at the issuer and the claims of the last sign-in, split by origin (ID token, userinfo).
 */
@Entity({ name: 'user_oidc_links' })
@Index('IDX_user_oidc_links_issuer_subject', ['issuer', 'subject'], { unique: true })
export class UserOidcLink {
  @PrimaryColumn({ name: 'user_id', type: 'bigint' })
  userId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  @Column({ type: 'varchar', length: 2048 })
  issuer: string;

  @Column({ type: 'varchar', length: 255 })
  subject: string;

  @Column({ name: 'id_token_claims', type: 'jsonb', default: () => "'{}'" })
  idTokenClaims: Record<string, unknown>;

  @Column({ name: 'userinfo_claims', type: 'jsonb', default: () => "'{}'" })
  userinfoClaims: Record<string, unknown>;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';

/** An SSH public key of a user (Gitea `public_key`, type user). The fingerprint is unique over all keys. */
@Entity({ name: 'public_keys' })
@Index('IDX_public_keys_fingerprint', ['fingerprint'], { unique: true })
@Index('IDX_public_keys_owner_title', ['ownerId', 'title'], { unique: true })
export class PublicKey {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id' })
  owner: Relation<User>;

  @Column({ type: 'varchar', length: 255 })
  title: string;

  /** `type base64 [comment]`, as submitted (trimmed). */
  @Column({ type: 'text' })
  content: string;

  /** `SHA256:<base64 without padding>`, as ssh-keygen prints it. */
  @Column({ type: 'varchar', length: 255 })
  fingerprint: string;

  /** Algorithm family reported by sshpk: rsa, ecdsa, ed25519. */
  @Column({ type: 'varchar', length: 32 })
  algorithm: string;

  @Column({ name: 'key_size', type: 'integer' })
  keySize: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../entities/user.entity';

/**
 * A user's secret (Coder's user secrets, reference D.1): the value sealed with the platform's
 * SecretBox (AES-256-GCM, bound to the user and the secret id), never returned by the API. The
 * workspace agent receives enabled secrets as environment variables and files.
 */
@Entity({ name: 'user_secrets' })
@Index('IDX_user_secrets_user_name', ['userId', 'name'], { unique: true })
@Index('IDX_user_secrets_user_env_name', ['userId', 'envName'], { unique: true, where: `"env_name" <> ''` })
@Index('IDX_user_secrets_user_file_path', ['userId', 'filePath'], {
  unique: true,
  where: `"file_path" <> ''`,
})
export class UserSecret {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'sealed_value', type: 'text' })
  sealedValue: string;

  /** Size of the plain value in bytes (the per-user limits count them). */
  @Column({ name: 'value_bytes', type: 'integer' })
  valueBytes: number;

  @Column({ name: 'env_name', type: 'varchar', length: 256, default: '' })
  envName: string;

  @Column({ name: 'file_path', type: 'varchar', length: 4096, default: '' })
  filePath: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

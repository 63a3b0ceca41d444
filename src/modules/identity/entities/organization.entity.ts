import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  OneToOne,
  PrimaryColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from './user.entity';

export type WorkspaceSharingMode = 'none' | 'everyone' | 'service_accounts';

/**
 * Organization details; the organization's name, uuid and numeric id live in its `users` row
 * (type `organization`), so it shares the user namespace.
 */
@Entity({ name: 'organizations' })
export class Organization {
  @PrimaryColumn({ name: 'account_id', type: 'bigint' })
  accountId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account: Relation<User>;

  @Column({ name: 'display_name', type: 'varchar', length: 255, default: '' })
  displayName: string;

  @Column({ type: 'varchar', length: 2048, default: '' })
  icon: string;

  /** Coder's default organization: every user joins it. */
  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;

  @Column({ name: 'workspace_sharing_mode', type: 'varchar', length: 32, default: 'everyone' })
  workspaceSharingMode: WorkspaceSharingMode;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

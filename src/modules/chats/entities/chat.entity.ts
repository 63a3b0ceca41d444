import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type ChatStatus = 'waiting' | 'pending' | 'running' | 'error' | 'requires_action' | 'interrupting';

/** A chat: a conversation with a model, optionally bound to a workspace; children are subagent chats. */
@Entity({ name: 'chats' })
@Index('chats_owner_updated', ['ownerId', 'updatedAt'])
@Index('chats_pending', ['updatedAt'], { where: "status = 'pending'" })
export class Chat {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  /** The owner's uuid. */
  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ name: 'workspace_id', type: 'uuid', nullable: true })
  workspaceId: string | null;

  @Index('chats_parent')
  @Column({ name: 'parent_chat_id', type: 'uuid', nullable: true })
  parentChatId: string | null;

  @Index('chats_root')
  @Column({ name: 'root_chat_id', type: 'uuid', nullable: true })
  rootChatId: string | null;

  @Column({ name: 'last_model_config_id', type: 'uuid' })
  lastModelConfigId: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  title: string;

  @Column({ type: 'varchar', length: 16, default: 'waiting' })
  status: ChatStatus;

  @Column({ type: 'boolean', default: false })
  archived: boolean;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @Column({ name: 'pin_order', type: 'integer', default: 0 })
  pinOrder: number;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  labels: Record<string, string>;

  /** The runner instance working on the chat and until when (a runner that dies loses it). */
  @Column({ name: 'runner_id', type: 'varchar', length: 64, nullable: true })
  runnerId: string | null;

  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'client_type', type: 'varchar', length: 8, default: 'api' })
  clientType: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

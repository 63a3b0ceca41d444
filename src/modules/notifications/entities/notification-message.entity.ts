import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { type NotificationMethod, NotificationTemplate } from './notification-template.entity';
import { User } from '../../identity/entities/user.entity';

export type MessageStatus =
  'pending' | 'leased' | 'sent' | 'permanent_failure' | 'temporary_failure' | 'unknown' | 'inhibited';

/**
 * One delivery of one notification by one method: the durable queue. Every state lives in this
 * row, so nothing is lost across a restart; dispatchers lease rows with FOR UPDATE SKIP LOCKED.
 */
@Entity({ name: 'notification_messages' })
@Check(
  'CHK_notification_messages_status',
  `"status" IN ('pending', 'leased', 'sent', 'permanent_failure', 'temporary_failure', 'unknown', 'inhibited')`,
)
@Check('CHK_notification_messages_method', `"method" IN ('smtp', 'webhook', 'inbox')`)
@Index('IDX_notification_messages_dispatch', ['createdAt'], {
  where: `"status" IN ('pending', 'temporary_failure', 'leased')`,
})
@Index('IDX_notification_messages_updated', ['updatedAt'])
@Index('IDX_notification_messages_user', ['userId'])
export class NotificationMessage {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'template_id', type: 'uuid' })
  templateId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: Relation<User>;

  @ManyToOne(() => NotificationTemplate, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'template_id' })
  template?: Relation<NotificationTemplate>;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  method: NotificationMethod;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: MessageStatus;

  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason: string | null;

  @Column({ name: 'created_by', type: 'text' })
  createdBy: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount: number;

  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  targets: string[];

  @Column({ name: 'dedupe_hash', type: 'char', length: 32, unique: true })
  dedupeHash: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  /** Fencing: only the dispatcher holding the lease may record the outcome. */
  @Column({ name: 'leased_by', type: 'uuid', nullable: true })
  leasedBy: string | null;

  @Column({ name: 'next_retry_after', type: 'timestamptz', nullable: true })
  nextRetryAfter: Date | null;

  @Column({ name: 'queued_seconds', type: 'double precision', nullable: true })
  queuedSeconds: number | null;
}

import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { NotificationTemplate, type TemplateAction } from './notification-template.entity';
import { User } from '../../identity/entities/user.entity';

/** An inbox item. Its id is the id of the queue message that produced it (idempotent delivery). */
@Entity({ name: 'inbox_notifications' })
@Index('IDX_inbox_notifications_user_created', ['userId', 'createdAt', 'id'])
// Unread items newest first (the unread page, the counters' recount): only unread rows are in it.
@Index('IDX_inbox_notifications_user_unread', ['userId', 'createdAt', 'id'], { where: `"read_at" IS NULL` })
export class InboxNotification {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ name: 'template_id', type: 'uuid' })
  templateId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: Relation<User>;

  @ManyToOne(() => NotificationTemplate, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'template_id' })
  template?: Relation<NotificationTemplate>;

  @Column({ type: 'uuid', array: true, default: () => "'{}'" })
  targets: string[];

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'text', default: '' })
  icon: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  actions: TemplateAction[];

  @Column({ name: 'read_at', type: 'timestamptz', nullable: true })
  readAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}

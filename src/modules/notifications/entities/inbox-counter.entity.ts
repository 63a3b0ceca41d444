import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from 'typeorm';
import { User } from '../../identity/entities/user.entity';

/**
 * A user's inbox bookkeeping (issue 52.2): the unread count, kept by statement-level triggers on
 * `inbox_notifications` (migration InboxCounters), and the mark-all-as-read watermark: an item created at
 * or before `read_all_before` is read whatever its `read_at` says, until the `notifications.inbox-read-all`
 * job has written `read_at` on it. Reads honour the watermark (InboxRepository).
 */
@Entity({ name: 'inbox_counters' })
export class InboxCounter {
  @PrimaryColumn({ name: 'user_id', type: 'bigint' })
  userId: string;

  @OneToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  /** Items that are unread: `read_at IS NULL` and created after the watermark. */
  @Column({ type: 'integer', default: 0 })
  unread: number;

  @Column({ name: 'read_all_before', type: 'timestamptz', nullable: true })
  readAllBefore: Date | null;
}

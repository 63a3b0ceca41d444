import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One change of a user's status (`active`, `dormant`, `suspended`, or `deleted`), written by a
 * database trigger on `users` (insert, status update, delete) so no writer can forget it. No foreign
 * key: the history of a deleted user stays, ending in `deleted`. The user status chart reads it.
 */
@Entity({ name: 'user_status_changes' })
@Index('IDX_user_status_changes_user_changed', ['userId', 'changedAt'])
@Index('IDX_user_status_changes_changed', ['changedAt'])
export class UserStatusChange {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ name: 'new_status', type: 'varchar', length: 16 })
  newStatus: string;

  @Column({ name: 'changed_at', type: 'timestamptz', default: () => 'now()' })
  changedAt: Date;
}

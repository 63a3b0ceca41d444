import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * The grant record of a deleted administrator: who granted it. Kept so the grantor-inheritance
 * walk can pass over deleted administrators (their grantees inherit the grantor's management).
 * No foreign keys: both ids may refer to deleted accounts.
 */
@Entity({ name: 'admin_grant_tombstones' })
export class AdminGrantTombstone {
  @PrimaryColumn({ name: 'user_id', type: 'bigint' })
  userId: string;

  @Column({ name: 'admin_granted_by', type: 'bigint', nullable: true })
  adminGrantedBy: string | null;

  @Column({ type: 'varchar', length: 255 })
  username: string;

  @CreateDateColumn({ name: 'deleted_at', type: 'timestamptz' })
  deletedAt: Date;
}

import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One audited write (Coder's audit log). Written in the transaction of the write it records, through
 * the platform's AuditLog port. The actor and the organization are kept by id without foreign keys,
 * so entries outlive what they describe (a deleted user's entries stay readable).
 */
@Entity({ name: 'audit_logs' })
@Index('IDX_audit_logs_time_id', ['time', 'id'])
@Index('IDX_audit_logs_type_time_id', ['resourceType', 'time', 'id'])
@Index('IDX_audit_logs_user_time_id', ['userId', 'time', 'id'])
@Index('IDX_audit_logs_org_time_id', ['organizationId', 'time', 'id'])
@Index('IDX_audit_logs_resource_id', ['resourceId'])
// `action:` filters (with or without `date_from:`) walk this index in the list's order (issue 52.3).
@Index('IDX_audit_logs_action_time_id', ['action', 'time', 'id'])
export class AuditLogEntry {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'timestamptz', default: () => 'clock_timestamp()' })
  time: Date;

  /** Numeric id of the acting user; null for the system. */
  @Column({ name: 'user_id', type: 'bigint', nullable: true })
  userId: string | null;

  /** Uuid of the organization the resource belongs to, if any. */
  @Column({ name: 'organization_id', type: 'uuid', nullable: true })
  organizationId: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 1024, nullable: true })
  userAgent: string | null;

  @Column({ name: 'resource_type', type: 'varchar', length: 64 })
  resourceType: string;

  @Column({ name: 'resource_id', type: 'varchar', length: 64 })
  resourceId: string;

  @Column({ name: 'resource_target', type: 'varchar', length: 512 })
  resourceTarget: string;

  @Column({ type: 'varchar', length: 32 })
  action: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  diff: Record<string, unknown>;

  @Column({ name: 'status_code', type: 'integer', default: 200 })
  statusCode: number;

  @Column({ name: 'additional_fields', type: 'jsonb', default: () => "'{}'" })
  additionalFields: Record<string, unknown>;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;
}

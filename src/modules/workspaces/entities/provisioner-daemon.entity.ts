import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A provisioner daemon as last seen (Coder's `provisioner_daemons`): a row per daemon process (its worker id),
 * written when it polls for jobs, so the organization's daemons page and a new job's `matched_provisioners` know
 * who can take work. A built-in daemon (inside the server) serves every organization: no organization, no key.
 */
@Entity({ name: 'provisioner_daemons' })
@Index('provisioner_daemons_organization', ['organizationId', 'lastSeenAt'])
export class ProvisionerDaemonRecord {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('provisioner_daemons_worker', { unique: true })
  @Column({ name: 'worker_id', type: 'varchar', length: 64 })
  workerId: string;

  /** null: a built-in daemon, serving every organization. */
  @Column({ name: 'organization_id', type: 'uuid', nullable: true })
  organizationId: string | null;

  /** The provisioner key it authenticated with (null: built-in). */
  @Column({ name: 'key_id', type: 'uuid', nullable: true })
  keyId: string | null;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  version: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  tags: Record<string, string>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt: Date;
}

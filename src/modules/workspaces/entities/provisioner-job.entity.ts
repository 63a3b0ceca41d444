import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type ProvisionerJobType = 'template_version_import' | 'workspace_build';
export type StoredJobStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceling' | 'canceled';

/** A unit of provisioner work, acquired by a daemon with FOR UPDATE SKIP LOCKED under a lease. */
@Entity({ name: 'provisioner_jobs' })
@Index('provisioner_jobs_queue', ['organizationId', 'createdAt'], {
  where: "status IN ('pending', 'running')",
})
export class ProvisionerJob {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ type: 'varchar', length: 32 })
  type: ProvisionerJobType;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: StoredJobStatus;

  /** `{template_version_id}` or `{workspace_build_id}`. */
  @Column({ type: 'jsonb' })
  input: { template_version_id?: string; workspace_build_id?: string };

  @Column({ name: 'initiator_id', type: 'uuid' })
  initiatorId: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  tags: Record<string, string>;

  @Column({ name: 'worker_id', type: 'varchar', length: 64, nullable: true })
  workerId: string | null;

  @Column({ name: 'worker_name', type: 'varchar', length: 128, nullable: true })
  workerName: string | null;

  /** The provisioner key of the daemon running the job (null: an embedded daemon); binds reports to it. */
  @Column({ name: 'worker_key_id', type: 'uuid', nullable: true })
  workerKeyId: string | null;

  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  /** Runs started (a lease that expired counts). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'error_code', type: 'varchar', length: 64, nullable: true })
  errorCode: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'canceled_at', type: 'timestamptz', nullable: true })
  canceledAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

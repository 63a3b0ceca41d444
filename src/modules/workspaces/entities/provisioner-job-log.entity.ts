import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One log line of a provisioner job (Coder's ProvisionerJobLog). */
@Entity({ name: 'provisioner_job_logs' })
@Index('provisioner_job_logs_job', ['jobId', 'id'])
export class ProvisionerJobLog {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'job_id', type: 'uuid' })
  jobId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'log_source', type: 'varchar', length: 16, default: 'provisioner' })
  logSource: string;

  @Column({ name: 'log_level', type: 'varchar', length: 8, default: 'info' })
  logLevel: string;

  @Column({ type: 'varchar', length: 128, default: '' })
  stage: string;

  @Column({ type: 'text' })
  output: string;
}

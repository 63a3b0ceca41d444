import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type JobStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/**
 * One durable job (platform/jobs): a reaction that must survive a crash. The row is the whole
 * state, so `SELECT * FROM jobs` shows the queue: pending (due at `run_at`, also after a retryable
 * failure), running (leased by one worker until `leased_until`), succeeded, failed (kept for
 * inspection with `last_error`).
 */
@Entity({ name: 'jobs' })
@Check('CHK_jobs_status', `"status" IN ('pending', 'running', 'succeeded', 'failed')`)
@Index('IDX_jobs_due', ['runAt'], { where: `"status" IN ('pending', 'running')` })
@Index('IDX_jobs_finished', ['finishedAt'], { where: `"status" IN ('succeeded', 'failed')` })
@Index('UQ_jobs_dedupe', ['type', 'dedupeKey'], {
  unique: true,
  where: `"dedupe_key" IS NOT NULL AND "status" IN ('pending', 'running')`,
})
export class Job {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The handler's name, `<module>.<what>` (e.g. `workflows.webhook`). */
  @Column({ type: 'varchar', length: 100 })
  type: string;

  @Column({ type: 'jsonb' })
  payload: unknown;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: JobStatus;

  /** Runs started (a run whose worker died counts too). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'max_attempts', type: 'integer' })
  maxAttempts: number;

  @Column({ name: 'run_at', type: 'timestamptz', default: () => 'now()' })
  runAt: Date;

  @Column({ name: 'leased_by', type: 'varchar', length: 64, nullable: true })
  leasedBy: string | null;

  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil: Date | null;

  /** At most one pending or running job per (type, dedupe_key): a second enqueue is a no-op. */
  @Column({ name: 'dedupe_key', type: 'varchar', length: 200, nullable: true })
  dedupeKey: string | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type WorkspaceTransition = 'start' | 'stop' | 'delete';

/** One build of a workspace (start, stop or delete), run by its provisioner job. */
@Entity({ name: 'workspace_builds' })
@Index('workspace_builds_workspace_number', ['workspaceId', 'buildNumber'], { unique: true })
export class WorkspaceBuild {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'template_version_id', type: 'uuid' })
  templateVersionId: string;

  @Column({ name: 'template_version_preset_id', type: 'uuid', nullable: true })
  templateVersionPresetId: string | null;

  @Column({ name: 'build_number', type: 'integer' })
  buildNumber: number;

  @Column({ type: 'varchar', length: 16 })
  transition: WorkspaceTransition;

  @Column({ type: 'varchar', length: 32, default: 'initiator' })
  reason: string;

  @Column({ name: 'initiator_id', type: 'uuid' })
  initiatorId: string;

  @Index('workspace_builds_job', { unique: true })
  @Column({ name: 'job_id', type: 'uuid' })
  jobId: string;

  @Column({ name: 'has_ai_task', type: 'boolean', default: false })
  hasAiTask: boolean;

  /** The build that handed a prebuilt workspace to its claimant. */
  @Column({ name: 'is_claim', type: 'boolean', default: false })
  isClaim: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A resource a build job produced (the built-in provisioner: one `devplane_workspace` directory). */
@Entity({ name: 'workspace_resources' })
export class WorkspaceResource {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('workspace_resources_job')
  @Column({ name: 'job_id', type: 'uuid' })
  jobId: string;

  @Column({ type: 'varchar', length: 16 })
  transition: string;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 256, default: '' })
  icon: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

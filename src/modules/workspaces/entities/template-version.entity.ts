import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { TemplateDefinition } from '../template-definition';

/** A template version: the declarative definition the built-in provisioner applies, and its import job. */
@Entity({ name: 'template_versions' })
export class TemplateVersion {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('template_versions_template')
  @Column({ name: 'template_id', type: 'uuid', nullable: true })
  templateId: string | null;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 1048, default: '' })
  message: string;

  @Column({ type: 'varchar', length: 32, default: 'devplane' })
  provisioner: string;

  @Column({ type: 'jsonb' })
  definition: TemplateDefinition;

  @Column({ name: 'job_id', type: 'uuid' })
  jobId: string;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

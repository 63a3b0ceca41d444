import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A preset of a template version (from its definition), with the number of prebuilt workspaces to keep. */
@Entity({ name: 'template_version_presets' })
@Index('template_version_presets_version_name', ['templateVersionId', 'name'], { unique: true })
export class TemplateVersionPreset {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'template_version_id', type: 'uuid' })
  templateVersionId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  parameters: Record<string, string>;

  /** Prebuilt workspaces to keep ready (null: none). */
  @Column({ name: 'desired_instances', type: 'integer', nullable: true })
  desiredInstances: number | null;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

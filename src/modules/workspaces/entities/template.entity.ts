import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A Coder template: a name in an organization and its active version. */
@Entity({ name: 'templates' })
@Index('templates_org_name', ['organizationId', 'lowerName'], { unique: true, where: 'deleted = false' })
export class Template {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The organization's uuid. */
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 64 })
  lowerName: string;

  @Column({ name: 'display_name', type: 'varchar', length: 64, default: '' })
  displayName: string;

  @Column({ type: 'varchar', length: 128, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 256, default: '' })
  icon: string;

  @Column({ name: 'active_version_id', type: 'uuid' })
  activeVersionId: string;

  /** The creator's uuid. */
  @Column({ name: 'created_by', type: 'uuid' })
  createdBy: string;

  @Column({ type: 'boolean', default: false })
  deleted: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

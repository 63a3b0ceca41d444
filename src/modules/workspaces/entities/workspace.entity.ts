import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A workspace: an owner's instance of a template (a directory plus an agent, for the built-in provisioner). */
@Entity({ name: 'workspaces' })
@Index('workspaces_owner_name', ['ownerId', 'lowerName'], { unique: true, where: 'deleted = false' })
export class Workspace {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The owner's uuid (the prebuilds system user for unclaimed prebuilt workspaces). */
  @Index('workspaces_owner')
  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Index('workspaces_template')
  @Column({ name: 'template_id', type: 'uuid' })
  templateId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 64 })
  lowerName: string;

  /** Sharing: user uuid → actions, group uuid → actions (Coder's workspace ACL). */
  @Column({ name: 'user_acl', type: 'jsonb', default: () => "'{}'" })
  userAcl: Record<string, string[]>;

  @Column({ name: 'group_acl', type: 'jsonb', default: () => "'{}'" })
  groupAcl: Record<string, string[]>;

  @Column({ type: 'boolean', default: false })
  deleted: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', default: () => 'now()' })
  lastUsedAt: Date;

  /** A task's prompt (Coder's `initial_prompt`; set by createTask, null for plain workspaces). */
  @Column({ name: 'task_prompt', type: 'text', nullable: true })
  taskPrompt: string | null;

  /** A task's display name (Coder's Task.display_name; the workspace name when null). */
  @Column({ name: 'task_display_name', type: 'varchar', length: 128, nullable: true })
  taskDisplayName: string | null;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  Generated,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from './user.entity';

export type TeamPermission = 'none' | 'read' | 'write' | 'admin' | 'owner';

/** A team inside an organization (Gitea teams; also Nextcloud-style groups for workflow checks). */
@Entity({ name: 'teams' })
@Index('IDX_teams_org_lower_name', ['organizationId', 'lowerName'], { unique: true })
export class Team {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'organization_id', type: 'bigint' })
  organizationId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id' })
  organization: Relation<User>;

  /** Coder addresses a team as a group by this id. */
  @Column({ type: 'uuid', unique: true })
  @Generated('uuid')
  uuid: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  /** Coder group fields. */
  @Column({ name: 'display_name', type: 'varchar', length: 255, default: '' })
  displayName: string;

  @Column({ name: 'avatar_url', type: 'varchar', length: 2048, default: '' })
  avatarUrl: string;

  @Column({ name: 'quota_allowance', type: 'integer', default: 0 })
  quotaAllowance: number;

  @Column({ name: 'lower_name', type: 'varchar', length: 255 })
  lowerName: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 16, default: 'read' })
  permission: TeamPermission;

  @Column({ name: 'includes_all_repositories', type: 'boolean', default: false })
  includesAllRepositories: boolean;

  /** Gitea repository units the team's permission applies to (`repo.code`, `repo.issues`, ...). */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  units: string[];

  @Column({ name: 'can_create_org_repo', type: 'boolean', default: false })
  canCreateOrgRepo: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

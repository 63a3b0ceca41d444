import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import { Repository } from '../entities/repository.entity';
import { Milestone } from '../milestones/milestone.entity';

/**
 * An issue or a pull request (Gitea keeps both in one table so they share the per-repository
 * `index`, the number users see). A pull request has a `PullRequest` row beside it.
 */
@Entity({ name: 'issues' })
@Index('IDX_issues_repository_index', ['repositoryId', 'index'], { unique: true })
// The lists' order (created_at DESC, id DESC) per repository and kind: a page at any depth walks this index.
@Index('IDX_issues_repository_kind_created', ['repositoryId', 'isPull', 'createdAt', 'id'])
// Open issues and pulls (the default list, and the repository row's open counters): only open rows.
@Index('IDX_issues_repository_kind_open', ['repositoryId', 'isPull', 'createdAt', 'id'], {
  where: 'is_closed = false',
})
// The milestone filter and the milestones' open/closed counts.
@Index('IDX_issues_milestone', ['milestoneId', 'isClosed'])
export class Issue {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  /** Per repository, from 1, shared by issues and pull requests. */
  @Column({ type: 'bigint' })
  index: string;

  /** Null once the poster's account is deleted (shown as Gitea's "Ghost"). */
  @Column({ name: 'poster_id', type: 'bigint', nullable: true })
  posterId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'poster_id' })
  poster: Relation<User> | null;

  @Column({ type: 'varchar', length: 255 })
  title: string;

  @Column({ type: 'text', default: '' })
  body: string;

  @Column({ name: 'is_pull', type: 'boolean', default: false })
  isPull: boolean;

  @Column({ name: 'is_closed', type: 'boolean', default: false })
  isClosed: boolean;

  @Column({ name: 'is_locked', type: 'boolean', default: false })
  isLocked: boolean;

  @Column({ name: 'num_comments', type: 'integer', default: 0 })
  numComments: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt: Date | null;

  /** Gitea's milestone of the issue (labels: `issue_labels`); the milestone's deletion clears it. */
  @Column({ name: 'milestone_id', type: 'bigint', nullable: true })
  milestoneId: string | null;

  @ManyToOne(() => Milestone, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'milestone_id' })
  milestone?: Relation<Milestone> | null;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VirtualColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';

/**
 * A git repository: the row, and a bare repository on disk at
 * `DATA_DIR/repositories/<lower owner>/<lower name>.git` (GitStorage is the one place that knows the
 * layout). Owned by an individual or an organization (one `users` table, one namespace).
 */
@Entity({ name: 'repositories' })
@Index('IDX_repositories_owner_lower_name', ['ownerId', 'lowerName'], { unique: true })
// `numForks` and fork lookups (a pull request's head repository) by the forked repository.
@Index('IDX_repositories_fork', ['forkId'], { where: 'fork_id IS NOT NULL' })
export class Repository {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @ManyToOne(() => User, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_id' })
  owner: Relation<User>;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 100 })
  lowerName: string;

  @Column({ type: 'varchar', length: 2048, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 1024, default: '' })
  website: string;

  @Column({ name: 'is_private', type: 'boolean', default: false })
  isPrivate: boolean;

  /** No commits yet (Gitea's `empty`): cleared by the first push. */
  @Column({ name: 'is_empty', type: 'boolean', default: true })
  isEmpty: boolean;

  @Column({ name: 'is_archived', type: 'boolean', default: false })
  isArchived: boolean;

  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @Column({ name: 'is_mirror', type: 'boolean', default: false })
  isMirror: boolean;

  @Column({ name: 'default_branch', type: 'varchar', length: 255, default: 'main' })
  defaultBranch: string;

  /** The repository this one was forked from. */
  @Column({ name: 'fork_id', type: 'bigint', nullable: true })
  forkId: string | null;

  @Column({ name: 'size_kib', type: 'bigint', default: 0 })
  sizeKib: string;

  // Counters that follow the data (Gitea keeps them in columns it updates; here they are counted when the
  // repository is loaded, so no code path can leave them behind). Absent when a repository is built by hand.
  /** Gitea's `forks_count`. */
  @VirtualColumn({
    type: 'int',
    query: (alias) => `SELECT count(*)::int FROM repositories f WHERE f.fork_id = ${alias}.id`,
  })
  numForks?: number;

  /** Gitea's `open_issues_count` (issues only, not pull requests). */
  @VirtualColumn({
    type: 'int',
    query: (alias) =>
      `SELECT count(*)::int FROM issues i WHERE i.repository_id = ${alias}.id AND NOT i.is_pull AND NOT i.is_closed`,
  })
  numOpenIssues?: number;

  /** Gitea's `open_pr_counter`. */
  @VirtualColumn({
    type: 'int',
    query: (alias) =>
      `SELECT count(*)::int FROM issues i WHERE i.repository_id = ${alias}.id AND i.is_pull AND NOT i.is_closed`,
  })
  numOpenPulls?: number;

  /** Gitea's `release_counter` (published releases, drafts left out). */
  @VirtualColumn({
    type: 'int',
    query: (alias) =>
      `SELECT count(*)::int FROM releases r WHERE r.repository_id = ${alias}.id AND NOT r.is_draft`,
  })
  numReleases?: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

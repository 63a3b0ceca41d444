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

/**
 * A release: a tag plus a title and notes. A published release has its git tag (created at
 * `target` when it did not exist); a draft has none yet and is invisible to readers.
 */
@Entity({ name: 'releases' })
@Index('IDX_releases_repository_tag', ['repositoryId', 'lowerTagName'], { unique: true })
export class Release {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  @Column({ name: 'publisher_id', type: 'bigint', nullable: true })
  publisherId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'publisher_id' })
  publisher: Relation<User> | null;

  @Column({ name: 'tag_name', type: 'varchar', length: 255 })
  tagName: string;

  @Column({ name: 'lower_tag_name', type: 'varchar', length: 255 })
  lowerTagName: string;

  /** `target_commitish`: a branch or commit the tag was (or will be) created at. */
  @Column({ type: 'varchar', length: 255, default: '' })
  target: string;

  /** The commit of the tag once published. */
  @Column({ name: 'commit_id', type: 'varchar', length: 64, default: '' })
  commitId: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  title: string;

  @Column({ type: 'text', default: '' })
  note: string;

  @Column({ name: 'is_draft', type: 'boolean', default: false })
  isDraft: boolean;

  @Column({ name: 'is_prerelease', type: 'boolean', default: false })
  isPrerelease: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** When the release stopped being a draft (Gitea's `published_at`, the creation time for others). */
  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;
}

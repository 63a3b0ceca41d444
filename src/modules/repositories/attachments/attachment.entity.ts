import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import { Repository } from '../entities/repository.entity';
import { Comment } from '../issues/comment.entity';
import { Issue } from '../issues/issue.entity';
import { Release } from '../releases/release.entity';

/**
 * A file attached to a release, an issue or a comment of an issue (Gitea's Attachment). The bytes
 * live in the blob store under `blobKey` (`attachments/u0/u1/uuid`, Gitea's layout); deleting the row
 * goes with a durable job that deletes the blob.
 */
@Entity({ name: 'attachments' })
@Index('IDX_attachments_uuid', ['uuid'], { unique: true })
@Index('IDX_attachments_release', ['releaseId'])
@Index('IDX_attachments_issue', ['issueId'])
@Index('IDX_attachments_comment', ['commentId'])
@Index('IDX_attachments_repository', ['repositoryId'])
export class Attachment {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'uuid' })
  uuid: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  /** Set for issue and comment attachments (the comment's issue for the latter). */
  @Column({ name: 'issue_id', type: 'bigint', nullable: true })
  issueId: string | null;

  @ManyToOne(() => Issue, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'issue_id' })
  issue: Relation<Issue> | null;

  @Column({ name: 'comment_id', type: 'bigint', nullable: true })
  commentId: string | null;

  @ManyToOne(() => Comment, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'comment_id' })
  comment: Relation<Comment> | null;

  @Column({ name: 'release_id', type: 'bigint', nullable: true })
  releaseId: string | null;

  @ManyToOne(() => Release, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'release_id' })
  release: Relation<Release> | null;

  @Column({ name: 'uploader_id', type: 'bigint', nullable: true })
  uploaderId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'uploader_id' })
  uploader: Relation<User> | null;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 255 })
  mimeType: string;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ name: 'download_count', type: 'bigint', default: 0 })
  downloadCount: string;

  @Column({ name: 'blob_key', type: 'varchar', length: 255 })
  blobKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

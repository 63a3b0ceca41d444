import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import { Issue } from '../issues/issue.entity';

export const REVIEW_STATES = ['APPROVED', 'PENDING', 'COMMENT', 'REQUEST_CHANGES', 'REQUEST_REVIEW'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** A review of a pull request (Gitea's Review): its state, the commit it reviewed, dismissal, official or not. */
@Entity({ name: 'pull_reviews' })
@Index('IDX_pull_reviews_issue', ['issueId', 'id'])
export class PullReview {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'issue_id', type: 'bigint' })
  issueId: string;

  @ManyToOne(() => Issue, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'issue_id' })
  issue: Relation<Issue>;

  @Column({ name: 'reviewer_id', type: 'bigint', nullable: true })
  reviewerId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'reviewer_id' })
  reviewer: Relation<User> | null;

  @Column({ type: 'varchar', length: 20 })
  state: ReviewState;

  @Column({ type: 'text', default: '' })
  body: string;

  @Column({ name: 'commit_id', type: 'varchar', length: 64, default: '' })
  commitId: string;

  /** Counted for `required_approvals` (the reviewer is on the approvals whitelist, or it is off and they can write). */
  @Column({ type: 'boolean', default: false })
  official: boolean;

  @Column({ type: 'boolean', default: false })
  stale: boolean;

  @Column({ type: 'boolean', default: false })
  dismissed: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A line comment of a review (Gitea's code comment). */
@Entity({ name: 'pull_review_comments' })
@Index('IDX_pull_review_comments_review', ['reviewId', 'id'])
export class PullReviewComment {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'review_id', type: 'bigint' })
  reviewId: string;

  @ManyToOne(() => PullReview, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'review_id' })
  review: Relation<PullReview>;

  @Column({ name: 'poster_id', type: 'bigint', nullable: true })
  posterId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'poster_id' })
  poster: Relation<User> | null;

  @Column({ type: 'text' })
  path: string;

  @Column({ type: 'text', default: '' })
  body: string;

  /** Line in the new file (positive) or the old one (negative), as Gitea stores it. */
  @Column({ type: 'integer', default: 0 })
  line: number;

  @Column({ name: 'commit_id', type: 'varchar', length: 64, default: '' })
  commitId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

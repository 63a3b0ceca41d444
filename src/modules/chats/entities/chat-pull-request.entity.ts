import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A pull request a chat opened (its `open_pull_request` tool): the link and what it was opened with;
 * its live state (merged, closed, additions, deletions) is read from the repositories module.
 */
@Entity({ name: 'chat_pull_requests' })
@Index('chat_pull_requests_created', ['createdAt'])
@Index('chat_pull_requests_issue', ['issueId'], { unique: true })
export class ChatPullRequest {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'chat_id', type: 'uuid' })
  chatId: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  /** The model configuration of the turn that opened it. */
  @Column({ name: 'model_config_id', type: 'uuid', nullable: true })
  modelConfigId: string | null;

  /** The pull request's issue in the repositories module (no foreign key across modules). */
  @Column({ name: 'issue_id', type: 'bigint' })
  issueId: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @Column({ type: 'integer' })
  number: number;

  @Column({ type: 'varchar', length: 255 })
  title: string;

  @Column({ name: 'html_url', type: 'text' })
  htmlUrl: string;

  @Column({ name: 'base_branch', type: 'varchar', length: 255 })
  baseBranch: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

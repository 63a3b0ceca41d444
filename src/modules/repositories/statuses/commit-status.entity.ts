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
import { Repository } from '../entities/repository.entity';

export const COMMIT_STATUS_STATES = ['pending', 'success', 'error', 'failure', 'warning'] as const;
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

/** One reported status of a commit (Gitea's CommitStatus): every report is kept, the newest per context counts. */
@Entity({ name: 'commit_statuses' })
@Index('IDX_commit_statuses_repository_sha', ['repositoryId', 'sha', 'id'])
export class CommitStatus {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  @Column({ type: 'varchar', length: 64 })
  sha: string;

  @Column({ type: 'varchar', length: 255, default: 'default' })
  context: string;

  @Column({ type: 'varchar', length: 16 })
  state: CommitStatusState;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'target_url', type: 'text', default: '' })
  targetUrl: string;

  @Column({ name: 'creator_id', type: 'bigint', nullable: true })
  creatorId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'creator_id' })
  creator: Relation<User> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

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
import { Issue } from './issue.entity';

/** A comment on an issue or a pull request (Gitea's plain comment type only). */
@Entity({ name: 'issue_comments' })
@Index('IDX_issue_comments_issue', ['issueId', 'id'])
export class Comment {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'issue_id', type: 'bigint' })
  issueId: string;

  @ManyToOne(() => Issue, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'issue_id' })
  issue: Relation<Issue>;

  @Column({ name: 'poster_id', type: 'bigint', nullable: true })
  posterId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'poster_id' })
  poster: Relation<User> | null;

  @Column({ type: 'text', default: '' })
  body: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import { Repository } from './repository.entity';

export type CollaboratorMode = 'read' | 'write' | 'admin';
export const COLLABORATOR_MODES: readonly CollaboratorMode[] = ['read', 'write', 'admin'];

/** A user given access to a repository directly (Gitea's collaboration). */
@Entity({ name: 'repository_collaborators' })
export class Collaborator {
  @PrimaryColumn({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @PrimaryColumn({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  @Column({ type: 'varchar', length: 8 })
  mode: CollaboratorMode;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

import {
  CreateDateColumn,
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  type Relation,
} from 'typeorm';
import { User } from '../entities/user.entity';

/** Gitea's user blocking: `blocker` (a user or an organization) blocks `blockee`. */
@Entity({ name: 'user_blocks' })
@Index('IDX_user_blocks_blockee', ['blockeeId'])
export class UserBlock {
  @PrimaryColumn({ name: 'blocker_id', type: 'bigint' })
  blockerId: string;

  @PrimaryColumn({ name: 'blockee_id', type: 'bigint' })
  blockeeId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'blocker_id' })
  blocker: Relation<User>;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'blockee_id' })
  blockee: Relation<User>;

  @Column({ type: 'varchar', length: 255, default: '' })
  note: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

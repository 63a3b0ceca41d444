import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
  type Relation,
} from 'typeorm';
import { User } from './user.entity';

/** Membership of a user in an organization, with Coder organization roles (`organization-admin`, ...). */
@Entity({ name: 'organization_members' })
@Index('IDX_organization_members_user', ['userId'])
export class OrganizationMember {
  @PrimaryColumn({ name: 'organization_id', type: 'bigint' })
  organizationId: string;

  @PrimaryColumn({ name: 'user_id', type: 'bigint' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id' })
  organization: Relation<User>;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user: Relation<User>;

  /** Explicitly assigned organization roles; the implicit `organization-member` is not stored. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  roles: string[];

  /** Gitea: member of the organization's owners team. */
  @Column({ name: 'is_owner', type: 'boolean', default: false })
  isOwner: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

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

/** A package of an owner (user or organization): type + name, optionally linked to a repository of the same owner. */
@Entity({ name: 'packages' })
@Index('IDX_packages_owner_type_name', ['ownerId', 'type', 'lowerName'], { unique: true })
export class Package {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @ManyToOne(() => User, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'owner_id' })
  owner: Relation<User>;

  @Column({ type: 'varchar', length: 16 })
  type: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 255 })
  lowerName: string;

  @Column({ name: 'semver_compatible', type: 'boolean', default: false })
  semverCompatible: boolean;

  /** Housekeeping packages of a registry: never shown through the API. */
  @Column({ name: 'is_internal', type: 'boolean', default: false })
  isInternal: boolean;

  /**
   * The linked repository (same owner). No foreign key: the repositories module is another module;
   * its `repository.deleted` event clears the link, and a dangling id presents as no repository.
   */
  @Column({ name: 'repository_id', type: 'bigint', nullable: true })
  repositoryId: string | null;

  /** npm dist-tags (`latest`, `next`, ...) → version. */
  @Column({ name: 'dist_tags', type: 'jsonb', default: () => "'{}'" })
  distTags: Record<string, string>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

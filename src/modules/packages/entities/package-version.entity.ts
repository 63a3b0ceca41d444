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
import { Package } from './package.entity';

/** One version of a package; its id is the Package JSON's `id` (as in Gitea). */
@Entity({ name: 'package_versions' })
@Index('IDX_package_versions_package_version', ['packageId', 'lowerVersion'], { unique: true })
export class PackageVersion {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'package_id', type: 'bigint' })
  packageId: string;

  @ManyToOne(() => Package, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'package_id' })
  package: Relation<Package>;

  @Column({ name: 'creator_id', type: 'bigint', nullable: true })
  creatorId: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'creator_id' })
  creator: Relation<User> | null;

  @Column({ type: 'varchar', length: 255 })
  version: string;

  @Column({ name: 'lower_version', type: 'varchar', length: 255 })
  lowerVersion: string;

  @Column({ name: 'is_internal', type: 'boolean', default: false })
  isInternal: boolean;

  /** The registry's own metadata of the version (npm: the version manifest as published). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, unknown>;

  @Column({ name: 'download_count', type: 'bigint', default: 0 })
  downloadCount: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

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
import { PackageBlob } from './package-blob.entity';
import { PackageVersion } from './package-version.entity';

/** A file of a package version (the npm tarball, a generic upload). */
@Entity({ name: 'package_files' })
@Index('IDX_package_files_version_name', ['versionId', 'lowerName'], { unique: true })
@Index('IDX_package_files_blob', ['blobId'])
export class PackageFile {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'version_id', type: 'bigint' })
  versionId: string;

  @ManyToOne(() => PackageVersion, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'version_id' })
  version: Relation<PackageVersion>;

  @Column({ name: 'blob_id', type: 'bigint' })
  blobId: string;

  @ManyToOne(() => PackageBlob, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'blob_id' })
  blob: Relation<PackageBlob>;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 255 })
  lowerName: string;

  @Column({ name: 'is_lead', type: 'boolean', default: false })
  isLead: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Bytes stored once per content (deduplicated by SHA-256 and size across versions and owners). SHA-256 is
 * known when the row is written (the store computes it while streaming); MD5, SHA-1 and SHA-512 may be
 * filled in after the upload answered (the `packages.blob-digests` job, or on demand by a reader):
 * null until then.
 */
@Entity({ name: 'package_blobs' })
@Index('IDX_package_blobs_sha256', ['sha256'], { unique: true })
export class PackageBlob {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ type: 'varchar', length: 32, nullable: true })
  md5: string | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  sha1: string | null;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ type: 'varchar', length: 128, nullable: true })
  sha512: string | null;

  @Column({ name: 'blob_key', type: 'varchar', length: 255 })
  blobKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

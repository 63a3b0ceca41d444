import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Bytes stored once per content (deduplicated by SHA-512 across versions and owners). */
@Entity({ name: 'package_blobs' })
@Index('IDX_package_blobs_sha512', ['sha512'], { unique: true })
export class PackageBlob {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ type: 'varchar', length: 32 })
  md5: string;

  @Column({ type: 'varchar', length: 40 })
  sha1: string;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ type: 'varchar', length: 128 })
  sha512: string;

  @Column({ name: 'blob_key', type: 'varchar', length: 255 })
  blobKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  type Relation,
} from 'typeorm';
import { Repository } from '../entities/repository.entity';

/**
 * A Git LFS object's bytes in the blob store, once per oid (the SHA-256 of the content) for the whole
 * site: a second upload of the same content keeps the first blob.
 */
@Entity({ name: 'lfs_objects' })
export class LfsObject {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  oid: string;

  @Column({ type: 'bigint' })
  size: string;

  @Column({ name: 'blob_key', type: 'varchar', length: 255 })
  blobKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** Which repository holds which LFS object (Gitea's LFSMetaObject): read access goes through this row. */
@Entity({ name: 'lfs_repository_objects' })
export class LfsRepositoryObject {
  @PrimaryColumn({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  oid: string;

  @Column({ type: 'bigint' })
  size: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

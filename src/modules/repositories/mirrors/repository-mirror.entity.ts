import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Repository } from '../entities/repository.entity';

/** The remote a mirror repository fetches from, and when (Gitea's repo_mirror). */
@Entity({ name: 'repository_mirrors' })
export class RepositoryMirror {
  @PrimaryColumn({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @OneToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  /** The clone address without credentials. */
  @Column({ name: 'remote_url', type: 'varchar', length: 2048 })
  remoteUrl: string;

  /** The `Authorization` header for the remote, sealed with the SecretBox (null: anonymous). */
  @Column({ name: 'sealed_authorization', type: 'text', nullable: true })
  sealedAuthorization: string | null;

  @Column({ name: 'interval_seconds', type: 'integer' })
  intervalSeconds: number;

  @Column({ name: 'updated_at', type: 'timestamptz', nullable: true })
  updatedAt: Date | null;

  /** When the next scheduled sync is due; a scheduled job for another time is stale and does nothing. */
  @Column({ name: 'next_sync_at', type: 'timestamptz', nullable: true })
  nextSyncAt: Date | null;

  /** The last sync's error (git's message, credentials removed), empty after a success. */
  @Column({ name: 'last_error', type: 'text', default: '' })
  lastError: string;
}

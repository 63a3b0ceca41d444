import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { Repository } from './repository.entity';

/** An old `<owner>/<name>` of a renamed repository: requests to it redirect (307) as Gitea's do. */
@Entity({ name: 'repository_redirects' })
@Index('IDX_repository_redirects_owner_lower_name', ['ownerId', 'lowerName'], { unique: true })
export class RepositoryRedirect {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'owner_id', type: 'bigint' })
  ownerId: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 100 })
  lowerName: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;
}

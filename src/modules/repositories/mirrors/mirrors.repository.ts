import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { RepositoryMirror } from './repository-mirror.entity';

/** The `repository_mirrors` table. */
@Injectable()
export class MirrorsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, values: Partial<RepositoryMirror>): Promise<RepositoryMirror> {
    const mirrors = manager.getRepository(RepositoryMirror);
    return mirrors.save(mirrors.create(values));
  }

  findByRepository(repositoryId: string): Promise<RepositoryMirror | null> {
    return this.dataSource.manager.getRepository(RepositoryMirror).findOneBy({ repositoryId });
  }

  /** Records a sync's outcome and the next one's time. */
  async recordSync(
    manager: EntityManager,
    repositoryId: string,
    outcome: { updatedAt: Date; lastError: string; nextSyncAt: Date | null },
  ): Promise<void> {
    await manager.getRepository(RepositoryMirror).update({ repositoryId }, outcome);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Release } from './release.entity';

/** The filters of a release list. */
export interface ReleaseListFilter {
  repositoryId: string;
  includeDrafts: boolean;
  draft?: boolean;
  prerelease?: boolean;
  limit: number;
  offset: number;
}

/** The `releases` table. */
@Injectable()
export class ReleasesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get releases() {
    return this.dataSource.manager.getRepository(Release);
  }

  tagExists(repositoryId: string, lowerTagName: string): Promise<boolean> {
    return this.releases.existsBy({ repositoryId, lowerTagName });
  }

  insert(manager: EntityManager, values: Partial<Release>): Promise<Release> {
    const releases = manager.getRepository(Release);
    return releases.save(releases.create(values));
  }

  /** Newest first, with publishers. */
  list(filter: ReleaseListFilter): Promise<[Release[], number]> {
    const builder = this.releases
      .createQueryBuilder('release')
      .leftJoinAndSelect('release.publisher', 'publisher')
      .where('release.repository_id = :repositoryId', { repositoryId: filter.repositoryId });
    if (!filter.includeDrafts) builder.andWhere('release.is_draft = false');
    if (filter.draft !== undefined) builder.andWhere('release.is_draft = :draft', { draft: filter.draft });
    if (filter.prerelease !== undefined)
      builder.andWhere('release.is_prerelease = :prerelease', { prerelease: filter.prerelease });
    return builder
      .orderBy('release.created_at', 'DESC')
      .addOrderBy('release.id', 'DESC')
      .skip(filter.offset)
      .take(filter.limit)
      .getManyAndCount();
  }

  findById(repositoryId: string, id: string): Promise<Release | null> {
    return this.releases.findOne({ where: { id, repositoryId }, relations: { publisher: true } });
  }

  findByTag(repositoryId: string, lowerTagName: string): Promise<Release | null> {
    return this.releases.findOne({ where: { repositoryId, lowerTagName }, relations: { publisher: true } });
  }

  /** The newest published release that is not a pre-release. */
  latest(repositoryId: string): Promise<Release | null> {
    return this.releases.findOne({
      where: { repositoryId, isDraft: false, isPrerelease: false },
      relations: { publisher: true },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** Applies the changes and returns the release with its publisher. */
  async update(manager: EntityManager, id: string, changes: Partial<Release>): Promise<Release> {
    await manager.getRepository(Release).update({ id }, changes);
    return manager.getRepository(Release).findOneOrFail({ where: { id }, relations: { publisher: true } });
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(Release).delete({ id });
  }
}

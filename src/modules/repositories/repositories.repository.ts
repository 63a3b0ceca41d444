import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, type DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { pageAndCount } from '../../platform/database/page-and-count';
import { RepositoryRedirect } from './entities/repository-redirect.entity';
import { Repository } from './entities/repository.entity';

/** Which repositories a viewer may see: every one (site administrators), public ones, or a user's reach. */
export type RepositoryVisibility =
  { kind: 'all' } | { kind: 'public' } | { kind: 'user'; viewerId: string; reach: RepositoryReach };

/** What a user reaches beyond public repositories and their own (from identity's services). */
export interface RepositoryReach {
  /** Organizations they own, or whose teams of theirs cover every repository. */
  orgIds: string[];
  /** The teams they are in. */
  teamIds: string[];
}

export interface RepositoryPage {
  offset: number;
  limit: number;
}

export interface RepositorySearch extends RepositoryPage {
  /** Lower-cased substring of the name. */
  q?: string;
  ownerId?: string;
  isPrivate?: boolean;
  sort: 'alpha' | 'created' | 'updated' | 'size' | 'id';
  order: 'asc' | 'desc';
}

/**
 * The `repositories` and `repository_redirects` tables. A repository's `owner` is a read-only relation to
 * identity's account (loaded with the repository); account lookups go through identity's directory.
 */
@Injectable()
export class RepositoriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get repos() {
    return this.dataSource.manager.getRepository(Repository);
  }

  // One query: findOne with a relation first selects the DISTINCT ids in a query of its own (two round
  // trips and twice the query building on every repository route).
  private withOwner() {
    return this.repos.createQueryBuilder('Repository').leftJoinAndSelect('Repository.owner', 'owner');
  }

  findByName(ownerId: string, lowerName: string): Promise<Repository | null> {
    return this.withOwner()
      .where('Repository.owner_id = :ownerId AND Repository.lower_name = :lowerName', { ownerId, lowerName })
      .getOne();
  }

  /** The redirect left by a renamed repository, with the repository and its owner. */
  findRedirect(ownerId: string, lowerName: string): Promise<RepositoryRedirect | null> {
    return this.dataSource.manager.getRepository(RepositoryRedirect).findOne({
      where: { ownerId, lowerName },
      relations: { repository: { owner: true } },
    });
  }

  findById(id: string): Promise<Repository | null> {
    return this.withOwner().where('Repository.id = :id', { id }).getOne();
  }

  nameTaken(ownerId: string, lowerName: string): Promise<boolean> {
    return this.repos.existsBy({ ownerId, lowerName });
  }

  hasFork(ownerId: string, forkId: string): Promise<boolean> {
    return this.repos.existsBy({ ownerId, forkId });
  }

  /**
   * Inserts a repository; its name may have been taken by an old name of a renamed repository:
   * the new one wins (the redirect goes).
   */
  async insert(manager: EntityManager, values: Partial<Repository>): Promise<Repository> {
    const table = manager.getRepository(Repository);
    const row = await table.save(table.create(values));
    await manager
      .getRepository(RepositoryRedirect)
      .delete({ ownerId: row.ownerId, lowerName: row.lowerName });
    return row;
  }

  async update(id: string, changes: Partial<Repository>, manager: EntityManager = this.dataSource.manager) {
    await manager.getRepository(Repository).update({ id }, changes);
  }

  /**
   * A rename: the new name's redirect goes; the old name redirects to the repository unless only
   * the case changed.
   */
  async redirectRename(
    manager: EntityManager,
    repo: { id: string; ownerId: string; lowerName: string },
    newLowerName: string,
  ): Promise<void> {
    const redirects = manager.getRepository(RepositoryRedirect);
    await redirects.delete({ ownerId: repo.ownerId, lowerName: newLowerName });
    if (newLowerName !== repo.lowerName) {
      await redirects.insert({ ownerId: repo.ownerId, lowerName: repo.lowerName, repositoryId: repo.id });
    }
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(Repository).delete({ id });
  }

  countOwnedBy(ownerId: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    return manager.getRepository(Repository).countBy({ ownerId });
  }

  /** An owner's repositories with the owner (`manager`: the caller's transaction). */
  ownedBy(ownerId: string, manager: EntityManager = this.dataSource.manager): Promise<Repository[]> {
    return manager.getRepository(Repository).find({ where: { ownerId }, relations: { owner: true } });
  }

  private base(): SelectQueryBuilder<Repository> {
    return this.repos.createQueryBuilder('repo').leftJoinAndSelect('repo.owner', 'owner');
  }

  /** Repositories the viewer may see: public ones, and private ones they have access to. */
  private visibleTo(query: SelectQueryBuilder<Repository>, visibility: RepositoryVisibility) {
    if (visibility.kind === 'all') return query;
    if (visibility.kind === 'public') return query.andWhere('repo.is_private = false');
    const { orgIds, teamIds } = visibility.reach;
    return query.andWhere(
      new Brackets((where) => {
        where
          .where('repo.is_private = false')
          .orWhere('repo.owner_id = :viewerId', { viewerId: visibility.viewerId })
          .orWhere(
            'EXISTS (SELECT 1 FROM repository_collaborators c WHERE c.repository_id = repo.id AND c.user_id = :viewerId)',
          )
          .orWhere('repo.owner_id = ANY(:viewerOrgIds::bigint[])', { viewerOrgIds: orgIds })
          .orWhere(
            'EXISTS (SELECT 1 FROM team_repositories tr WHERE tr.repository_id = repo.id AND tr.team_id = ANY(:viewerTeamIds::bigint[]))',
            {
              viewerTeamIds: teamIds,
            },
          );
      }),
    );
  }

  /** The forks of a repository the viewer may see, ids ascending. */
  forksOf(
    sourceId: string,
    visibility: RepositoryVisibility,
    page: RepositoryPage,
  ): Promise<[Repository[], number]> {
    return pageAndCount(
      this.visibleTo(this.base().where('repo.fork_id = :sourceId', { sourceId }), visibility).orderBy(
        'repo.id',
        'ASC',
      ),
      page.offset,
      page.limit,
    );
  }

  /** An owner's repositories the viewer may see, by name. */
  listOwnedBy(
    ownerId: string,
    visibility: RepositoryVisibility,
    page: RepositoryPage,
  ): Promise<[Repository[], number]> {
    return pageAndCount(
      this.visibleTo(this.base().where('repo.owner_id = :ownerId', { ownerId }), visibility)
        .orderBy('repo.lower_name', 'ASC')
        .addOrderBy('repo.id', 'ASC'),
      page.offset,
      page.limit,
    );
  }

  /** What the user owns or may access (collaborations, organizations, teams), ids ascending. */
  listAccessibleBy(
    userId: string,
    reach: RepositoryReach,
    page: RepositoryPage,
  ): Promise<[Repository[], number]> {
    const { orgIds, teamIds } = reach;
    return pageAndCount(
      this.base()
        .where(
          new Brackets((where) => {
            where
              .where('repo.owner_id = :userId', { userId })
              .orWhere(
                'EXISTS (SELECT 1 FROM repository_collaborators c WHERE c.repository_id = repo.id AND c.user_id = :userId)',
              )
              .orWhere('repo.owner_id = ANY(:orgIds::bigint[])', { orgIds })
              .orWhere(
                'EXISTS (SELECT 1 FROM team_repositories tr WHERE tr.repository_id = repo.id AND tr.team_id = ANY(:teamIds::bigint[]))',
                { teamIds },
              );
          }),
        )
        .orderBy('repo.id', 'ASC'),
      page.offset,
      page.limit,
    );
  }

  /** `GET /repos/search` over what the viewer may see. */
  search(visibility: RepositoryVisibility, search: RepositorySearch): Promise<[Repository[], number]> {
    let query = this.visibleTo(this.base(), visibility);
    if (search.q)
      query = query.andWhere('repo.lower_name LIKE :q', {
        q: `%${search.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      });
    if (search.ownerId) query = query.andWhere('repo.owner_id = :ownerId', { ownerId: search.ownerId });
    if (search.isPrivate !== undefined)
      query = query.andWhere('repo.is_private = :isPrivate', { isPrivate: search.isPrivate });
    const column = {
      alpha: 'repo.lower_name',
      created: 'repo.created_at',
      updated: 'repo.updated_at',
      size: 'repo.size_kib',
      id: 'repo.id',
    }[search.sort];
    const direction = search.order === 'desc' ? 'DESC' : 'ASC';
    return pageAndCount(
      query.orderBy(column, direction).addOrderBy('repo.id', direction),
      search.offset,
      search.limit,
    );
  }
}

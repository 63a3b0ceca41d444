import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, In } from 'typeorm';
import { Milestone } from './milestone.entity';

export interface MilestoneListFilter {
  repositoryId: string;
  /** Open (false), closed (true) or both (undefined). */
  closed?: boolean;
  /** Part of the name, case-insensitive. */
  name?: string;
  limit: number;
  offset: number;
}

/** The `milestones` table, and the issue counts per milestone (one grouped query for a page). */
@Injectable()
export class MilestonesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get rows() {
    return this.dataSource.manager.getRepository(Milestone);
  }

  list(filter: MilestoneListFilter): Promise<[Milestone[], number]> {
    const builder = this.rows
      .createQueryBuilder('milestone')
      .where('milestone.repository_id = :repositoryId', { repositoryId: filter.repositoryId });
    if (filter.closed !== undefined)
      builder.andWhere('milestone.is_closed = :closed', { closed: filter.closed });
    if (filter.name)
      builder.andWhere("milestone.name ILIKE :name ESCAPE '\\'", {
        name: `%${filter.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      });
    // Gitea's default order: by due date (none last), then id.
    return builder
      .orderBy('milestone.due_on', 'ASC', 'NULLS LAST')
      .addOrderBy('milestone.id', 'ASC')
      .skip(filter.offset)
      .take(filter.limit)
      .getManyAndCount();
  }

  find(repositoryId: string, id: string): Promise<Milestone | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.rows.findOneBy({ repositoryId, id });
  }

  findByName(repositoryId: string, name: string): Promise<Milestone | null> {
    return this.rows.findOneBy({ repositoryId, name });
  }

  /** Milestones of the repository among `refs` (names first, then ids, as Gitea's issue filter). */
  async resolve(repositoryId: string, refs: string[]): Promise<Milestone[]> {
    if (refs.length === 0) return [];
    const ids = refs.filter((ref) => /^\d{1,18}$/.test(ref));
    const builder = this.rows
      .createQueryBuilder('milestone')
      .where('milestone.repository_id = :repositoryId', { repositoryId })
      .andWhere(
        ids.length
          ? '(milestone.name IN (:...names) OR milestone.id IN (:...ids))'
          : 'milestone.name IN (:...names)',
        {
          names: refs,
          ids,
        },
      );
    return builder.getMany();
  }

  byIds(ids: string[]): Promise<Milestone[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.rows.findBy({ id: In(ids) });
  }

  save(milestone: Partial<Milestone>): Promise<Milestone> {
    return this.rows.save(this.rows.create(milestone));
  }

  async delete(id: string): Promise<void> {
    await this.rows.delete({ id });
  }

  /** Open and closed issues and pulls per milestone, in one grouped query over `IDX_issues_milestone`. */
  async counts(ids: string[]): Promise<Map<string, { open: number; closed: number }>> {
    const counts = new Map<string, { open: number; closed: number }>(
      ids.map((id) => [id, { open: 0, closed: 0 }]),
    );
    if (ids.length === 0) return counts;
    const rows = (await this.dataSource.manager.query(
      'SELECT milestone_id, is_closed, count(*)::int AS n FROM issues WHERE milestone_id = ANY($1::bigint[]) GROUP BY milestone_id, is_closed',
      [ids],
    )) as { milestone_id: string; is_closed: boolean; n: number }[];
    for (const row of rows) {
      const entry = counts.get(String(row.milestone_id));
      if (!entry) continue;
      if (row.is_closed) entry.closed = Number(row.n);
      else entry.open = Number(row.n);
    }
    return counts;
  }
}

import { Injectable } from '@nestjs/common';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import type { Repository } from '../entities/repository.entity';
import type { Milestone } from './milestone.entity';
import { MilestonesRepository } from './milestones.repository';

export interface MilestoneInput {
  title?: string;
  description?: string;
  state?: string;
  /** null clears the due date. */
  dueOn?: Date | null;
}

export type MilestoneCounts = Map<string, { open: number; closed: number }>;

const milestoneNotFound = (ref: string) =>
  new NotFoundError(`milestone does not exist [id: ${ref}]`, { code: 'MILESTONE_NOT_FOUND' });

/** Repository milestones (Gitea's routers/api/v1/repo/milestone.go). */
@Injectable()
export class MilestonesService {
  constructor(private readonly rows: MilestonesRepository) {}

  async list(
    repo: Repository,
    query: { state: 'open' | 'closed' | 'all'; name?: string; limit: number; offset: number },
  ): Promise<{ items: Milestone[]; total: number }> {
    const [items, total] = await this.rows.list({
      repositoryId: repo.id,
      closed: query.state === 'all' ? undefined : query.state === 'closed',
      name: query.name,
      limit: query.limit,
      offset: query.offset,
    });
    return { items, total };
  }

  /** `{id}` of Gitea's milestone routes: an id, else a name (Gitea's getMilestoneByIDOrName). */
  async require(repo: Repository, ref: string): Promise<Milestone> {
    const found = (await this.rows.find(repo.id, ref)) ?? (await this.rows.findByName(repo.id, ref));
    if (!found) throw milestoneNotFound(ref);
    return found;
  }

  /** A milestone set on an issue or pull: an id of this repository, else 422. */
  async requireForIssue(repo: Repository, id: number | string): Promise<Milestone> {
    const found = await this.rows.find(repo.id, String(id));
    if (!found)
      throw new InvalidError(`milestone does not exist [id: ${id}]`, { code: 'MILESTONE_NOT_FOUND' });
    return found;
  }

  /** The ids of the milestones `refs` (names or ids) name; unknown ones are left out (Gitea). */
  async resolve(repo: Repository, refs: string[]): Promise<string[]> {
    return (await this.rows.resolve(repo.id, refs)).map((milestone) => milestone.id);
  }

  async create(repo: Repository, input: MilestoneInput): Promise<Milestone> {
    const title = input.title?.trim() ?? '';
    if (!title) throw new InvalidError('[Title]: Required', { code: 'MILESTONE_TITLE' });
    const closed = stateOf(input.state) === 'closed';
    return this.rows.save({
      repositoryId: repo.id,
      name: title,
      description: input.description ?? '',
      isClosed: closed,
      closedAt: closed ? new Date() : null,
      dueOn: input.dueOn ?? null,
    });
  }

  async edit(repo: Repository, ref: string, input: MilestoneInput): Promise<Milestone> {
    const milestone = await this.require(repo, ref);
    if (input.title !== undefined && input.title.trim()) milestone.name = input.title.trim();
    if (input.description !== undefined) milestone.description = input.description;
    if (input.dueOn !== undefined) milestone.dueOn = input.dueOn;
    if (input.state !== undefined) {
      const closed = stateOf(input.state) === 'closed';
      if (closed !== milestone.isClosed) {
        milestone.isClosed = closed;
        milestone.closedAt = closed ? new Date() : null;
      }
    }
    return this.rows.save(milestone);
  }

  async delete(repo: Repository, ref: string): Promise<void> {
    await this.rows.delete((await this.require(repo, ref)).id);
  }

  counts(ids: string[]): Promise<MilestoneCounts> {
    return this.rows.counts(ids);
  }

  byIds(ids: string[]): Promise<Milestone[]> {
    return this.rows.byIds(ids);
  }
}

/** `open` / `closed`; anything else is 422 (Gitea binds `In(open,closed)` on create). */
function stateOf(state: string | undefined): 'open' | 'closed' {
  if (state === undefined || state === '' || state === 'open') return 'open';
  if (state === 'closed') return 'closed';
  throw new InvalidError(`[State]: In(open,closed)`, { code: 'MILESTONE_STATE' });
}

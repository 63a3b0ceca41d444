import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, type FindOptionsWhere, In } from 'typeorm';
import { Repository } from '../entities/repository.entity';
import { Issue } from './issue.entity';
import { PullRequest } from './pull-request.entity';

/** The `pull_requests` table (the issue half lives in `issues`, IssuesRepository). */
@Injectable()
export class PullsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /** A repository with its owner (the head repository of a pull request). */
  findRepositoryWithOwner(where: FindOptionsWhere<Repository>): Promise<Repository | null> {
    return this.manager.getRepository(Repository).findOne({ where, relations: { owner: true } });
  }

  /** An open, unmerged pull request from the head branch into the base branch. */
  findOpenDuplicate(target: {
    baseRepositoryId: string;
    headRepositoryId: string;
    headBranch: string;
    baseBranch: string;
  }): Promise<PullRequest | null> {
    return this.manager
      .getRepository(PullRequest)
      .createQueryBuilder('pull')
      .innerJoin('pull.issue', 'issue')
      .where('issue.repository_id = :baseId AND issue.is_closed = false AND pull.has_merged = false', {
        baseId: target.baseRepositoryId,
      })
      .andWhere(
        'pull.head_repository_id = :headId AND pull.head_branch = :headBranch AND pull.base_branch = :baseBranch',
        {
          headId: target.headRepositoryId,
          headBranch: target.headBranch,
          baseBranch: target.baseBranch,
        },
      )
      .getOne();
  }

  insert(manager: EntityManager, values: Partial<PullRequest>): Promise<PullRequest> {
    const pulls = manager.getRepository(PullRequest);
    return pulls.save(pulls.create(values));
  }

  /**
   * The pull requests of these issues (one page) with their merger, in one query; their head
   * repositories are loaded once per distinct repository (`repositoriesWithOwner`), not per row.
   */
  ofIssues(issueIds: string[]): Promise<PullRequest[]> {
    return this.manager.getRepository(PullRequest).find({
      where: { issueId: In(issueIds) },
      relations: { mergedBy: true },
    });
  }

  /** Repositories with their owner, by ids (one query). */
  repositoriesWithOwner(ids: string[]): Promise<Repository[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(Repository)
      .find({ where: { id: In(ids) }, relations: { owner: true } });
  }

  /**
   * Open, unmerged pull requests of these issues with their issue (its poster, repository and owner) and
   * head repository (and owner): what a mergeability recomputation needs (PullCheckQueue's job).
   */
  openWithContext(issueIds: string[]): Promise<PullRequest[]> {
    if (issueIds.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(PullRequest)
      .createQueryBuilder('pull')
      .innerJoinAndSelect('pull.issue', 'issue')
      .leftJoinAndSelect('issue.poster', 'poster')
      .innerJoinAndSelect('issue.repository', 'base')
      .innerJoinAndSelect('base.owner', 'baseOwner')
      .leftJoinAndSelect('pull.headRepository', 'head')
      .leftJoinAndSelect('head.owner', 'headOwner')
      .where('pull.issue_id IN (:...issueIds)', { issueIds })
      .andWhere('issue.is_closed = false')
      .andWhere('pull.has_merged = false')
      .getMany();
  }

  /** The base branches of the open, unmerged pull requests into the repository (the caller's transaction). */
  async openBasesInto(
    manager: EntityManager,
    repositoryId: string,
  ): Promise<{ issueId: string; baseBranch: string }[]> {
    const rows = (await manager.query(
      `SELECT p.issue_id, p.base_branch FROM pull_requests p JOIN issues i ON i.id = p.issue_id
        WHERE i.repository_id = $1 AND i.is_pull AND NOT i.is_closed AND NOT p.has_merged`,
      [repositoryId],
    )) as { issue_id: string; base_branch: string }[];
    return rows.map((row) => ({ issueId: String(row.issue_id), baseBranch: row.base_branch }));
  }

  /** Marks these pull requests `checking` (a recomputation is queued; the caller's transaction). */
  async markChecking(manager: EntityManager, issueIds: string[]): Promise<void> {
    if (issueIds.length === 0) return;
    await manager
      .createQueryBuilder()
      .update(PullRequest)
      .set({ status: 'checking' })
      .where('issue_id IN (:...issueIds) AND has_merged = false', { issueIds })
      .execute();
  }

  /**
   * Marks `checking` the open, unmerged pull requests a move of `branches` of the repository touches: into
   * it with one of them as base, or from it with one of them as head (the caller's transaction).
   */
  async markTouchingChecking(
    manager: EntityManager,
    repositoryId: string,
    branches: string[],
  ): Promise<void> {
    await manager.query(
      `UPDATE pull_requests p SET status = 'checking'
         FROM issues i
        WHERE i.id = p.issue_id AND NOT i.is_closed AND NOT p.has_merged AND p.status <> 'checking'
          AND ((i.repository_id = $1 AND p.base_branch = ANY($2::varchar[]))
            OR (p.head_repository_id = $1 AND p.head_branch = ANY($2::varchar[])))`,
      [repositoryId, branches],
    );
  }

  ofIssue(issueId: string): Promise<PullRequest | null> {
    return this.manager.getRepository(PullRequest).findOne({
      where: { issueId },
      relations: { headRepository: { owner: true }, mergedBy: true },
    });
  }

  /** The pull requests of these issues with their issue (its poster, repository and owner). */
  withIssues(issueIds: string[]): Promise<PullRequest[]> {
    return this.manager.getRepository(PullRequest).find({
      where: { issueId: In(issueIds) },
      relations: { issue: { poster: true, repository: { owner: true } } },
    });
  }

  async update(issueId: string, changes: Partial<PullRequest>): Promise<void> {
    await this.manager.getRepository(PullRequest).update({ issueId }, changes);
  }

  /** Open, unmerged pull requests into the repository, with their issue and head repository (and owner). */
  openInto(repositoryId: string): Promise<PullRequest[]> {
    return this.manager
      .getRepository(PullRequest)
      .createQueryBuilder('pull')
      .innerJoinAndSelect('pull.issue', 'issue')
      .leftJoinAndSelect('pull.headRepository', 'head')
      .leftJoinAndSelect('head.owner', 'headOwner')
      .where('issue.repository_id = :repo', { repo: repositoryId })
      .andWhere('issue.is_closed = false')
      .andWhere('pull.has_merged = false')
      .getMany();
  }

  /**
   * Open, unmerged pull requests a push to `branches` of the repository moves: into it with one of them
   * as base, or from it with one of them as head. With their issue, base repository (and owner) and
   * head repository (and owner).
   */
  openTouching(repositoryId: string, branches: string[]): Promise<PullRequest[]> {
    return this.manager
      .getRepository(PullRequest)
      .createQueryBuilder('pull')
      .innerJoinAndSelect('pull.issue', 'issue')
      .innerJoinAndSelect('issue.repository', 'base')
      .innerJoinAndSelect('base.owner', 'baseOwner')
      .leftJoinAndSelect('pull.headRepository', 'head')
      .leftJoinAndSelect('head.owner', 'headOwner')
      .where('issue.is_closed = false')
      .andWhere('pull.has_merged = false')
      .andWhere(
        '((issue.repository_id = :repo AND pull.base_branch IN (:...branches)) OR (pull.head_repository_id = :repo AND pull.head_branch IN (:...branches)))',
        { repo: repositoryId, branches },
      )
      .getMany();
  }

  /** Whether an open, unmerged pull request targets the branch of the repository. */
  isOpenTarget(repositoryId: string, branch: string): Promise<boolean> {
    return this.manager
      .getRepository(PullRequest)
      .createQueryBuilder('pull')
      .innerJoin('pull.issue', 'issue')
      .where('issue.repository_id = :repo', { repo: repositoryId })
      .andWhere('issue.is_closed = false')
      .andWhere('pull.has_merged = false')
      .andWhere('pull.base_branch = :branch', { branch })
      .getExists();
  }

  /** Open pull requests follow a renamed branch, as base (into the repository) and as head (from it). */
  async followBranchRename(
    manager: EntityManager,
    repositoryId: string,
    from: string,
    to: string,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(PullRequest)
      .set({ baseBranch: to })
      .where(
        `base_branch = :from AND issue_id IN (SELECT i.id FROM issues i WHERE i.repository_id = :repo AND i.is_closed = false) AND has_merged = false`,
        { from, repo: repositoryId },
      )
      .execute();
    await manager
      .createQueryBuilder()
      .update(PullRequest)
      .set({ headBranch: to })
      .where(
        `head_branch = :from AND head_repository_id = :repo AND has_merged = false AND issue_id IN (SELECT i.id FROM issues i WHERE i.is_closed = false)`,
        { from, repo: repositoryId },
      )
      .execute();
  }

  /** Records the merge and closes the issue (the caller's transaction). */
  async markMerged(
    manager: EntityManager,
    issueId: string,
    merge: { mergedAt: Date; mergedById: string; mergedCommitId: string; baseCommitId: string },
  ): Promise<void> {
    await manager.getRepository(PullRequest).update(
      { issueId },
      {
        hasMerged: true,
        mergedAt: merge.mergedAt,
        mergedById: merge.mergedById,
        mergedCommitId: merge.mergedCommitId,
        status: 'merged',
        baseCommitId: merge.baseCommitId,
      },
    );
    await manager.getRepository(Issue).update({ id: issueId }, { isClosed: true, closedAt: merge.mergedAt });
  }
}

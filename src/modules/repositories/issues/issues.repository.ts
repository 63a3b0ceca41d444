import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Comment } from './comment.entity';
import { Issue } from './issue.entity';

/** The filters of an issue list (IssuesService.list). */
export interface IssueListFilter {
  repositoryId: string;
  /** Open (false), closed (true) or both (undefined). */
  closed?: boolean;
  /** Pull requests (true), issues (false) or both (undefined). */
  isPull?: boolean;
  keyword?: string;
  /** Issues carrying every one of these labels. */
  labelIds?: string[];
  /** Issues in one of these milestones. */
  milestoneIds?: string[];
  limit: number;
  offset: number;
}

/** The `issues` and `comments` tables (issues and pull requests share the per-repository index). */
@Injectable()
export class IssuesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /** The next index of the repository, under a lock on its row held until the transaction ends. */
  async lockNextIndex(manager: EntityManager, repositoryId: string): Promise<string> {
    await manager.query('SELECT id FROM repositories WHERE id = $1 FOR UPDATE', [repositoryId]);
    const [{ next }] = (await manager.query(
      'SELECT COALESCE(MAX(index), 0) + 1 AS next FROM issues WHERE repository_id = $1',
      [repositoryId],
    )) as { next: string }[];
    return String(next);
  }

  insertIssue(manager: EntityManager, values: Partial<Issue>): Promise<Issue> {
    const issues = manager.getRepository(Issue);
    return issues.save(issues.create(values));
  }

  /**
   * One page and the total. The poster join is many-to-one (no row multiplies), so the page is a plain
   * `ORDER BY created_at DESC, id DESC LIMIT/OFFSET` walking `IDX_issues_repository_kind_*` (no DISTINCT
   * subquery), and the total one `count(*)` without the join (no COUNT(DISTINCT)).
   */
  async list(filter: IssueListFilter): Promise<[Issue[], number]> {
    const issues = this.manager.getRepository(Issue);
    const where = (builder: ReturnType<typeof issues.createQueryBuilder>) => {
      builder.where('issue.repository_id = :repositoryId', { repositoryId: filter.repositoryId });
      // Literals, not parameters: the planner matches them to the partial index on open rows.
      if (filter.closed !== undefined)
        builder.andWhere(`issue.is_closed = ${filter.closed ? 'true' : 'false'}`);
      if (filter.isPull !== undefined)
        builder.andWhere(`issue.is_pull = ${filter.isPull ? 'true' : 'false'}`);
      if (filter.keyword) {
        builder.andWhere(
          "(issue.title ILIKE :keyword ESCAPE '\\' OR issue.body ILIKE :keyword ESCAPE '\\')",
          {
            keyword: `%${filter.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
          },
        );
      }
      filter.labelIds?.forEach((labelId, i) =>
        builder.andWhere(
          `EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = issue.id AND il.label_id = :label${i})`,
          { [`label${i}`]: labelId },
        ),
      );
      if (filter.milestoneIds)
        builder.andWhere('issue.milestone_id IN (:...milestoneIds)', { milestoneIds: filter.milestoneIds });
      return builder;
    };
    if (filter.milestoneIds?.length === 0) return [[], 0];
    const page = where(issues.createQueryBuilder('issue').leftJoinAndSelect('issue.poster', 'poster'))
      .orderBy('issue.created_at', 'DESC')
      .addOrderBy('issue.id', 'DESC')
      .offset(filter.offset)
      .limit(filter.limit)
      .getMany();
    const total = where(issues.createQueryBuilder('issue')).getCount();
    return Promise.all([page, total]);
  }

  findByIndex(repositoryId: string, index: string): Promise<Issue | null> {
    return this.manager
      .getRepository(Issue)
      .findOne({ where: { repositoryId, index }, relations: { poster: true } });
  }

  async updateIssue(manager: EntityManager, issueId: string, changes: Partial<Issue>): Promise<void> {
    await manager.getRepository(Issue).update({ id: issueId }, changes);
  }

  findIssueWithPoster(manager: EntityManager, issueId: string): Promise<Issue> {
    return manager
      .getRepository(Issue)
      .findOneOrFail({ where: { id: issueId }, relations: { poster: true } });
  }

  /** Adds a comment and counts it on its issue (which is marked updated). */
  async insertComment(
    manager: EntityManager,
    values: { issueId: string; posterId: string; body: string },
  ): Promise<Comment> {
    const saved = await manager.getRepository(Comment).save(manager.getRepository(Comment).create(values));
    await manager.query(
      'UPDATE issues SET num_comments = num_comments + 1, updated_at = now() WHERE id = $1',
      [values.issueId],
    );
    return saved;
  }

  commentsOf(issueId: string): Promise<Comment[]> {
    return this.manager.getRepository(Comment).find({
      where: { issueId },
      relations: { poster: true },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  repositoryComments(
    repositoryId: string,
    paging: { limit: number; offset: number },
  ): Promise<[Comment[], number]> {
    return this.manager
      .getRepository(Comment)
      .createQueryBuilder('comment')
      .innerJoinAndSelect('comment.issue', 'issue')
      .leftJoinAndSelect('comment.poster', 'poster')
      .where('issue.repository_id = :repositoryId', { repositoryId })
      .orderBy('comment.created_at', 'ASC')
      .addOrderBy('comment.id', 'ASC')
      .skip(paging.offset)
      .take(paging.limit)
      .getManyAndCount();
  }

  findCommentWithIssue(id: string): Promise<Comment | null> {
    return this.manager.getRepository(Comment).findOne({
      where: { id },
      relations: { poster: true, issue: { poster: true } },
    });
  }

  /** Sets a comment's body and returns it with its poster. */
  async updateCommentBody(commentId: string, body: string): Promise<Comment> {
    const comments = this.manager.getRepository(Comment);
    await comments.update({ id: commentId }, { body });
    return comments.findOneOrFail({ where: { id: commentId }, relations: { poster: true } });
  }

  /** Removes a comment and uncounts it on its issue. */
  async deleteComment(manager: EntityManager, commentId: string, issueId: string): Promise<void> {
    await manager.getRepository(Comment).delete({ id: commentId });
    await manager.query('UPDATE issues SET num_comments = GREATEST(num_comments - 1, 0) WHERE id = $1', [
      issueId,
    ]);
  }
}

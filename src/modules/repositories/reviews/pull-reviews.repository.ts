import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { PullReview, PullReviewComment } from './pull-review.entity';

/** The `pull_reviews` and `pull_review_comments` tables. */
@Injectable()
export class PullReviewsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private reviews(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(PullReview);
  }

  private comments(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(PullReviewComment);
  }

  async insert(
    manager: EntityManager,
    review: Partial<PullReview>,
    comments: Partial<PullReviewComment>[],
  ): Promise<PullReview> {
    const saved = await this.reviews(manager).save(this.reviews(manager).create(review));
    if (comments.length > 0)
      await this.comments(manager).save(
        comments.map((comment) => this.comments(manager).create({ ...comment, reviewId: saved.id })),
      );
    return saved;
  }

  /** Earlier verdicts of a reviewer stop counting when they give a new one (Gitea clears `official`). */
  async clearOfficial(manager: EntityManager, issueId: string, reviewerId: string): Promise<void> {
    await this.reviews(manager).update({ issueId, reviewerId, official: true }, { official: false });
  }

  ofIssue(issueId: string): Promise<PullReview[]> {
    return this.reviews().find({ where: { issueId }, relations: { reviewer: true }, order: { id: 'ASC' } });
  }

  findOne(issueId: string, id: string): Promise<PullReview | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.reviews().findOne({ where: { issueId, id }, relations: { reviewer: true } });
  }

  async commentCounts(reviewIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (reviewIds.length === 0) return counts;
    const rows: { review_id: string; count: string }[] = await this.comments()
      .createQueryBuilder('c')
      .select('c.review_id', 'review_id')
      .addSelect('COUNT(*)', 'count')
      .where('c.review_id IN (:...ids)', { ids: reviewIds })
      .groupBy('c.review_id')
      .getRawMany();
    for (const row of rows) counts.set(String(row.review_id), Number(row.count));
    return counts;
  }

  commentsOf(reviewId: string): Promise<PullReviewComment[]> {
    return this.comments().find({ where: { reviewId }, relations: { poster: true }, order: { id: 'ASC' } });
  }

  async update(id: string, changes: Partial<PullReview>): Promise<void> {
    await this.reviews().update({ id }, changes);
  }

  async delete(id: string): Promise<void> {
    await this.reviews().delete({ id });
  }
}

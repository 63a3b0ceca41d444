import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, In, IsNull } from 'typeorm';
import { Comment } from '../issues/comment.entity';
import { Issue } from '../issues/issue.entity';
import { Attachment } from './attachment.entity';

/** What an attachment belongs to, by column. */
export type AttachmentOwnerColumn = 'repositoryId' | 'releaseId' | 'issueId' | 'commentId';

/** The `attachments` table (and the `updated_at` of the issue or comment an attachment changes). */
@Injectable()
export class AttachmentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get attachments() {
    return this.dataSource.manager.getRepository(Attachment);
  }

  blobKeyInUse(blobKey: string): Promise<boolean> {
    return this.attachments.existsBy({ blobKey });
  }

  /** An issue's own attachments (not its comments'), ids ascending. */
  ofIssue(issueId: string): Promise<Attachment[]> {
    return this.attachments.find({ where: { issueId, commentId: IsNull() }, order: { id: 'ASC' } });
  }

  /** The own attachments of a page of issues, in one query (ids ascending). */
  ofIssues(issueIds: string[]): Promise<Attachment[]> {
    if (issueIds.length === 0) return Promise.resolve([]);
    return this.attachments.find({
      where: { issueId: In(issueIds), commentId: IsNull() },
      order: { id: 'ASC' },
    });
  }

  ofComment(commentId: string): Promise<Attachment[]> {
    return this.attachments.find({ where: { commentId }, order: { id: 'ASC' } });
  }

  /** A release's assets by name. */
  ofRelease(releaseId: string): Promise<Attachment[]> {
    return this.attachments.find({ where: { releaseId }, order: { name: 'ASC', id: 'ASC' } });
  }

  findById(id: string): Promise<Attachment | null> {
    return this.attachments.findOneBy({ id });
  }

  findByUuid(uuid: string): Promise<Attachment | null> {
    return this.attachments.findOne({ where: { uuid }, relations: { release: true } });
  }

  findReleaseAsset(releaseId: string, name: string): Promise<Attachment | null> {
    return this.attachments.findOne({
      where: { releaseId, name },
      order: { id: 'ASC' },
      relations: { release: true },
    });
  }

  insert(manager: EntityManager, values: Partial<Attachment>): Promise<Attachment> {
    const attachments = manager.getRepository(Attachment);
    return attachments.save(attachments.create(values));
  }

  /** Moves the `updated_at` of an issue (and of a comment of it). */
  async touchParent(manager: EntityManager, issueId: string, commentId?: string): Promise<void> {
    if (commentId !== undefined)
      await manager.getRepository(Comment).update({ id: commentId }, { updatedAt: new Date() });
    await manager.getRepository(Issue).update({ id: issueId }, { updatedAt: new Date() });
  }

  /** Renames and returns the row. */
  async rename(manager: EntityManager, id: string, name: string): Promise<Attachment> {
    await manager.getRepository(Attachment).update({ id }, { name });
    return manager.getRepository(Attachment).findOneByOrFail({ id });
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(Attachment).delete({ id });
  }

  /** Deletes every attachment of the repository, release, issue or comment; returns the rows deleted. */
  async deleteAllOf(
    manager: EntityManager,
    column: AttachmentOwnerColumn,
    id: string,
  ): Promise<Attachment[]> {
    const rows = await manager.getRepository(Attachment).find({ where: { [column]: id } });
    if (!rows.length) return rows;
    await manager.getRepository(Attachment).delete({ id: In(rows.map((row) => row.id)) });
    return rows;
  }

  async countDownload(id: string): Promise<void> {
    await this.attachments.increment({ id }, 'downloadCount', 1);
  }
}

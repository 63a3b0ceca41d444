import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { TransactionRunner, type Transaction } from '../../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  TooLargeError,
} from '../../../platform/errors/domain-error';
import type {
  FileEventPayload,
  RequestSnapshot,
  StoredFileKind,
} from '../../../platform/events/subject-events';
import { JobQueue } from '../../../platform/jobs/job-queue.service';
import { BlobStore } from '../../../platform/storage/blob-store';
import { UploadPolicy } from '../../../platform/uploads/upload-policy';
import type { User } from '../../identity/entities/user.entity';
import { UserBlocksService } from '../../identity/blocks/user-blocks.service';
import { OrganizationsService } from '../../identity/organizations.service';
import { ContentDeletionHooks, type ContentScope } from '../content-deletion-hooks';
import type { Repository } from '../entities/repository.entity';
import type { Comment } from '../issues/comment.entity';
import type { GiteaAssetDto } from '../issues/gitea-issue.presenter';
import { IssueAssets } from '../issues/issue-assets';
import type { Issue } from '../issues/issue.entity';
import type { Release } from '../releases/release.entity';
import type { Attachment } from './attachment.entity';
import { AttachmentsRepository } from './attachments.repository';
import { AllowedTypes, FORBIDDEN_TYPE_MESSAGE } from './attachment-types';
import { detectContentType, SNIFF_LENGTH, storedMimeType } from './content-sniffing';
import { presentGiteaAttachment } from './gitea-attachment.presenter';
import { readHead } from './stream-head';
import { isUuid } from '../../../platform/text/uuid';

export const DELETE_BLOB_JOB = 'attachments.delete-blob';
/** An upload's blob is collected this long after it started unless a row refers to it (a crash between store and commit). */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

export type AttachmentTarget =
  | { kind: 'release'; release: Release }
  | { kind: 'issue'; issue: Issue }
  | { kind: 'comment'; comment: Comment; issue: Issue };

export interface UploadInput {
  repo: Repository;
  uploader: User;
  target: AttachmentTarget;
  name: string;
  body: Readable;
  /** The raw body's Content-Length, when declared: the blob store may stream it in one request. */
  expectedSize?: number;
  request: RequestSnapshot | null;
}

const KIND: Record<AttachmentTarget['kind'], StoredFileKind> = {
  release: 'release_attachment',
  issue: 'issue_attachment',
  comment: 'comment_attachment',
};

function fileKind(attachment: Attachment): StoredFileKind {
  return attachment.releaseId
    ? 'release_attachment'
    : attachment.commentId
      ? 'comment_attachment'
      : 'issue_attachment';
}

/**
 * Attachments of releases, issues and comments (spec 3, Gitea §4): bytes stream into the blob store
 * (size limit enforced while reading), the row is written in a transaction that undoes the blob when
 * it fails, and every blob deletion is a durable job. Uploads pass the workflow engine's access check
 * first; after commit the File events fire.
 */
@Injectable()
export class AttachmentsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AttachmentsService.name);
  readonly settings: AppConfig['attachments'];

  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly blobs: BlobStore,
    private readonly jobs: JobQueue,
    private readonly transactions: TransactionRunner,
    private readonly organizations: OrganizationsService,
    private readonly deletionHooks: ContentDeletionHooks,
    private readonly issueAssets: IssueAssets,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly userBlocks: UserBlocksService,
    @Optional() private readonly policy?: UploadPolicy,
  ) {
    this.settings = config.attachments;
  }

  onModuleInit(): void {
    this.jobs.register<{ key: string }>(DELETE_BLOB_JOB, async (job) => {
      // Idempotent: a blob still referred to by a row (an upload that committed) is kept.
      if (await this.attachments.blobKeyInUse(job.payload.key)) return;
      await this.blobs.delete(job.payload.key);
    });
    this.deletionHooks.register('attachments', (tx, scope) => this.deleteAllOf(tx, scope));
    this.issueAssets.use({
      ofIssue: async (issueId) => this.present(await this.attachments.ofIssue(issueId)),
      ofIssues: async (issueIds) => {
        const byIssue = new Map<string, Attachment[]>();
        for (const row of await this.attachments.ofIssues(issueIds)) {
          const key = String(row.issueId);
          byIssue.set(key, [...(byIssue.get(key) ?? []), row]);
        }
        return new Map(issueIds.map((id) => [id, this.present(byIssue.get(id) ?? [])]));
      },
      ofComment: async (commentId) => this.present(await this.attachments.ofComment(commentId)),
      ofRelease: async (releaseId) => this.present(await this.listOfRelease(releaseId)),
    });
  }

  onModuleDestroy(): void {
    this.deletionHooks.unregister('attachments');
    this.issueAssets.use(null);
  }

  present(rows: Attachment[]): GiteaAssetDto[] {
    return rows.map((row) => presentGiteaAttachment(row, this.config.publicUrl));
  }

  /** The size limit in bytes for this kind of attachment. */
  maxBytes(kind: AttachmentTarget['kind']): number {
    return (kind === 'release' ? this.settings.releaseMaxSizeMb : this.settings.maxSizeMb) * 1024 * 1024;
  }

  private allowedTypes(kind: AttachmentTarget['kind']): AllowedTypes {
    return new AllowedTypes(
      kind === 'release' ? this.settings.releaseAllowedTypes : this.settings.allowedTypes,
    );
  }

  /** Gitea answers a forbidden type with 400 for release assets and 422 for issue and comment assets. */
  private forbiddenType(kind: AttachmentTarget['kind']): Error {
    return kind === 'release'
      ? new BadRequestError(FORBIDDEN_TYPE_MESSAGE, { code: 'ATTACHMENT_TYPE' })
      : new InvalidError(FORBIDDEN_TYPE_MESSAGE, { code: 'ATTACHMENT_TYPE' });
  }

  private async ownerUserIds(repo: Repository): Promise<string[]> {
    return repo.owner.type === 'organization' ? this.organizations.ownerIdsOf(repo.ownerId) : [repo.ownerId];
  }

  private async fileEvent(
    repo: Repository,
    attachment: Attachment,
    actor: User | null,
    request: RequestSnapshot | null,
    extra: Partial<FileEventPayload> = {},
  ): Promise<FileEventPayload> {
    return {
      actorUserId: actor?.id ?? null,
      ownerUserIds: await this.ownerUserIds(repo),
      request,
      fileId: attachment.uuid,
      kind: fileKind(attachment),
      name: attachment.name,
      size: Number(attachment.size),
      mimeType: attachment.mimeType,
      repositoryId: repo.id,
      repository: `${repo.owner.name}/${repo.name}`,
      ...extra,
    };
  }

  async upload(input: UploadInput): Promise<Attachment> {
    const kind = input.target.kind;
    // Gitea saves the issue or comment again, which a user blocked by the issue's poster or the
    // repository's owner may not do: 403 before any byte is stored.
    if (
      input.target.kind !== 'release' &&
      (await this.userBlocks.isBlockedByAny(input.uploader.id, [
        input.target.issue.posterId,
        input.repo.ownerId,
      ]))
    ) {
      input.body.destroy();
      throw new ForbiddenError('user is blocked', 'permission', { code: 'USER_BLOCKED' });
    }
    const name = input.name.trim();
    if (!name)
      throw new BadRequestError('Could not determine name of attachment.', { code: 'ATTACHMENT_NAME' });
    if (name.length > 255) throw new InvalidError('[Name]: MaxSize', { code: 'ATTACHMENT_NAME' });
    const { head, body } = await readHead(input.body, SNIFF_LENGTH);
    if (!this.allowedTypes(kind).allows(name, detectContentType(head), head.length)) {
      body.destroy();
      throw this.forbiddenType(kind);
    }
    const mimeType = storedMimeType(name, head);
    if (this.policy) {
      await this.policy
        .assertFileAllowed({
          name,
          mimeType,
          size: input.request?.declaredSize ?? null,
          actorUserId: input.uploader.id,
          request: input.request,
        })
        .catch((error: unknown) => {
          body.destroy();
          throw error;
        });
    }
    const uuid = randomUUID();
    const blobKey = `attachments/${uuid[0]}/${uuid[1]}/${uuid}`;
    // A crash after the bytes are stored and before the row commits must not leave them forever.
    await this.transactions.run(({ manager }) =>
      this.jobs.enqueue(manager, DELETE_BLOB_JOB, { key: blobKey }, { delayMs: ORPHAN_GRACE_MS }),
    );
    const maxBytes = this.maxBytes(kind);
    let stored;
    try {
      stored = await this.blobs.put(blobKey, body, {
        maxBytes,
        contentType: mimeType,
        expectedSize: input.expectedSize,
      });
    } catch (error) {
      if (error instanceof TooLargeError)
        throw new TooLargeError(`attachment exceeds limit ${maxBytes}`, { code: 'ATTACHMENT_TOO_LARGE' });
      throw error;
    }
    try {
      return await this.transactions.run(async (tx) => {
        tx.onRollback(() => this.blobs.delete(blobKey).then(() => undefined));
        const target = input.target;
        const saved = await this.attachments.insert(tx.manager, {
          uuid,
          repositoryId: input.repo.id,
          releaseId: target.kind === 'release' ? target.release.id : null,
          issueId:
            target.kind === 'issue' ? target.issue.id : target.kind === 'comment' ? target.issue.id : null,
          commentId: target.kind === 'comment' ? target.comment.id : null,
          uploaderId: input.uploader.id,
          name,
          size: String(stored.size),
          mimeType,
          sha256: stored.sha256,
          blobKey,
        });
        await this.touchParent(tx, target);
        tx.emitDurable(
          'file.created',
          await this.fileEvent(input.repo, saved, input.uploader, input.request, { kind: KIND[kind] }),
        );
        return saved;
      });
    } catch (error) {
      await this.blobs.delete(blobKey).catch(() => undefined);
      throw error;
    }
  }

  /** The issue or comment is saved again so the attachment is linked and its `updated_at` moves (Gitea). */
  private async touchParent(tx: Transaction, target: AttachmentTarget): Promise<void> {
    if (target.kind === 'issue') await this.attachments.touchParent(tx.manager, target.issue.id);
    if (target.kind === 'comment')
      await this.attachments.touchParent(tx.manager, target.issue.id, target.comment.id);
  }

  async listOfRelease(releaseId: string): Promise<Attachment[]> {
    return this.attachments.ofRelease(releaseId);
  }

  async listOf(target: AttachmentTarget): Promise<Attachment[]> {
    if (target.kind === 'release') return this.listOfRelease(target.release.id);
    if (target.kind === 'issue') return this.attachments.ofIssue(target.issue.id);
    return this.attachments.ofComment(target.comment.id);
  }

  /** An attachment of the target, else Gitea's 404 texts. */
  async requireOf(repo: Repository, target: AttachmentTarget, attachmentId: string): Promise<Attachment> {
    const row = /^\d{1,18}$/.test(attachmentId) ? await this.attachments.findById(attachmentId) : null;
    switch (target.kind) {
      case 'release':
        if (!row || row.releaseId !== target.release.id)
          throw new NotFoundError('attachment does not exist', { code: 'ATTACHMENT_NOT_FOUND' });
        return row;
      case 'issue':
        if (!row || row.repositoryId !== repo.id)
          throw new NotFoundError('no such attachment in repo', { code: 'ATTACHMENT_NOT_FOUND' });
        if (row.issueId !== target.issue.id || row.commentId !== null)
          throw new NotFoundError('no such attachment in issue', { code: 'ATTACHMENT_NOT_FOUND' });
        return row;
      case 'comment':
        if (!row || row.repositoryId !== repo.id)
          throw new NotFoundError('no such attachment in repo', { code: 'ATTACHMENT_NOT_FOUND' });
        if (row.commentId !== target.comment.id)
          throw new NotFoundError('no such attachment in comment', { code: 'ATTACHMENT_NOT_FOUND' });
        return row;
    }
  }

  /** Renames (an empty name changes nothing); the new name must pass the allowed list by extension (422). */
  async rename(
    repo: Repository,
    attachment: Attachment,
    actor: User,
    newName: string | undefined,
    request: RequestSnapshot | null,
  ): Promise<Attachment> {
    const name = newName?.trim() ?? '';
    if (!name || name === attachment.name) return attachment;
    if (name.length > 255) throw new InvalidError('[Name]: MaxSize', { code: 'ATTACHMENT_NAME' });
    const kind = attachment.releaseId ? 'release' : 'issue';
    if (!this.allowedTypes(kind).allows(name, null, 0))
      throw new InvalidError(FORBIDDEN_TYPE_MESSAGE, { code: 'ATTACHMENT_TYPE' });
    return this.transactions.run(async (tx) => {
      const updated = await this.attachments.rename(tx.manager, attachment.id, name);
      tx.emitDurable(
        'file.renamed',
        await this.fileEvent(repo, updated, actor, request, { oldName: attachment.name }),
      );
      return updated;
    });
  }

  async remove(
    repo: Repository,
    attachment: Attachment,
    actor: User,
    request: RequestSnapshot | null,
  ): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.attachments.delete(tx.manager, attachment.id);
      await this.jobs.enqueue(tx.manager, DELETE_BLOB_JOB, { key: attachment.blobKey });
      tx.emitDurable('file.deleted', await this.fileEvent(repo, attachment, actor, request));
    });
  }

  /** Inside the transaction deleting a repository, release, issue or comment: one blob job per attachment. */
  private async deleteAllOf(tx: Transaction, scope: ContentScope): Promise<void> {
    const column = {
      repository: 'repositoryId',
      release: 'releaseId',
      issue: 'issueId',
      comment: 'commentId',
    } as const;
    const rows = await this.attachments.deleteAllOf(tx.manager, column[scope.kind], scope.id);
    if (!rows.length) return;
    for (const row of rows) await this.jobs.enqueue(tx.manager, DELETE_BLOB_JOB, { key: row.blobKey });
    this.logger.debug({ scope, attachments: rows.length }, 'attachments deleted with their parent');
  }

  async findByUuid(uuid: string): Promise<Attachment | null> {
    if (!isUuid(uuid)) return null;
    return this.attachments.findByUuid(uuid.toLowerCase());
  }

  async findReleaseAsset(releaseId: string, name: string): Promise<Attachment | null> {
    return this.attachments.findReleaseAsset(releaseId, name);
  }

  /** Access check for a download (workflow rules may refuse reads too), then count it. */
  async beforeDownload(
    attachment: Attachment,
    actor: User | null,
    request: RequestSnapshot | null,
  ): Promise<void> {
    if (this.policy) {
      await this.policy.assertFileAllowed({
        name: attachment.name,
        mimeType: attachment.mimeType,
        size: Number(attachment.size),
        actorUserId: actor?.id ?? null,
        request,
      });
    }
  }

  /** Counts a download that sent bytes (a GET answered 200 or 206; not HEAD, 304 or 416). */
  async recordDownload(attachment: Attachment): Promise<void> {
    await this.attachments.countDownload(attachment.id);
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { InvalidError, NotFoundError, TooLargeError } from '../../../platform/errors/domain-error';
import { BlobStore } from '../../../platform/storage/blob-store';
import type { Repository } from '../entities/repository.entity';
import { REPOSITORIES_CONFIG, type RepositoriesConfig } from '../repositories.config';
import type { LfsObject } from './lfs-object.entity';
import { LfsLinks } from './lfs-links';
import { LfsRepository } from './lfs.repository';

export const LFS_OID = /^[0-9a-f]{64}$/;

export interface LfsPointer {
  oid: string;
  size: number;
}

export interface LfsAction {
  href: string;
  header?: Record<string, string>;
  expires_in?: number;
}

/** One object of a batch answer (the Git LFS batch API's shape). */
export interface LfsBatchObject {
  oid: string;
  size: number;
  authenticated?: boolean;
  actions?: Partial<Record<'download' | 'upload' | 'verify', LfsAction>>;
  error?: { code: number; message: string };
}

export interface LfsBatchInput {
  operation: 'download' | 'upload';
  objects: LfsPointer[];
  /** The repository's LFS base URL: `<PUBLIC_URL><owner>/<repo>.git/info/lfs`. */
  baseUrl: string;
  userId: string | null;
}

/**
 * Git LFS over the blob store (issue 49.7): the batch answer, object uploads (SHA-256 and size checked
 * while streaming, stored once per oid), downloads and verify. Permissions are decided before these run
 * (the controller and LfsAccessAssignment): a batch `upload` needs write access, downloads read access.
 */
@Injectable()
export class LfsService {
  private readonly logger = new Logger(LfsService.name);

  constructor(
    private readonly rows: LfsRepository,
    private readonly blobs: BlobStore,
    private readonly links: LfsLinks,
    private readonly transactions: TransactionRunner,
    @Inject(REPOSITORIES_CONFIG) private readonly config: RepositoriesConfig,
  ) {}

  get maxFileSize(): number {
    return this.config.lfsMaxFileSize;
  }

  async batch(repo: Repository, input: LfsBatchInput): Promise<LfsBatchObject[]> {
    const valid = input.objects.filter((object) => LFS_OID.test(object.oid));
    const held = await this.rows.held(
      repo.id,
      valid.map((object) => object.oid),
    );
    return input.objects.map((object): LfsBatchObject => {
      const { oid, size } = object;
      if (!LFS_OID.test(oid)) return { oid, size, error: { code: 422, message: 'Invalid oid' } };
      if (!Number.isSafeInteger(size) || size < 0)
        return { oid, size, error: { code: 422, message: 'Invalid size' } };
      const stored = held.get(oid);
      const link = (op: 'download' | 'upload'): LfsAction => {
        const signed = this.links.sign({ op, repositoryId: repo.id, oid, userId: input.userId });
        return {
          href: `${input.baseUrl}/objects/${oid}`,
          header: { Authorization: signed.header },
          expires_in: signed.expiresIn,
        };
      };
      if (input.operation === 'download') {
        if (!stored) return { oid, size, error: { code: 404, message: 'Object does not exist' } };
        return {
          oid,
          size: Number(stored.size),
          authenticated: true,
          actions: { download: link('download') },
        };
      }
      if (size > this.maxFileSize)
        return {
          oid,
          size,
          error: { code: 422, message: `Size must be less than or equal to ${this.maxFileSize}` },
        };
      // Held with the same size: nothing to send (Gitea answers no actions).
      if (stored && Number(stored.size) === size) return { oid, size, authenticated: true };
      const upload = link('upload');
      return {
        oid,
        size,
        authenticated: true,
        actions: {
          upload,
          verify: { href: `${input.baseUrl}/verify`, header: upload.header, expires_in: upload.expires_in },
        },
      };
    });
  }

  /**
   * Stores an upload: streamed into a fresh blob (the limit enforced while reading, the declared size
   * held exactly), then the SHA-256 and size compared with the oid and the size git-lfs announced; a
   * mismatch deletes the blob and is 422. Content the site already holds is kept once (the new blob
   * is deleted) and linked to this repository.
   */
  async upload(
    repo: Repository,
    oid: string,
    body: Readable,
    declaredSize: number | undefined,
  ): Promise<void> {
    if (!LFS_OID.test(oid)) throw new InvalidError('Invalid oid', { code: 'LFS_OID' });
    if (declaredSize !== undefined && declaredSize > this.maxFileSize)
      throw new TooLargeError(`Size must be less than or equal to ${this.maxFileSize}`, {
        code: 'LFS_TOO_LARGE',
      });
    const key = `lfs/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}-${randomUUID()}`;
    const put = await this.blobs.put(key, body, {
      maxBytes: this.maxFileSize,
      expectedSize: declaredSize,
      contentType: 'application/octet-stream',
    });
    if (put.sha256 !== oid) {
      await this.discard(key);
      throw new InvalidError(`Object content does not match its oid (sha256 ${put.sha256})`, {
        code: 'LFS_OID_MISMATCH',
      });
    }
    let kept: LfsObject;
    try {
      kept = await this.transactions.run((tx) =>
        this.rows.store(tx.manager, repo.id, { oid, size: put.size, blobKey: key }),
      );
    } catch (error) {
      await this.discard(key);
      throw error;
    }
    // Another upload of the same content got there first: its blob is the one kept.
    if (kept.blobKey !== key) await this.discard(key);
  }

  /** `verify`: the repository holds the object with that size (200), else 404 / 422. */
  async verify(repo: Repository, pointer: LfsPointer): Promise<void> {
    const stored = LFS_OID.test(pointer.oid)
      ? (await this.rows.held(repo.id, [pointer.oid])).get(pointer.oid)
      : null;
    if (!stored) throw new NotFoundError('Object does not exist', { code: 'LFS_OBJECT_NOT_FOUND' });
    if (Number(stored.size) !== pointer.size)
      throw new InvalidError('Object size does not match', { code: 'LFS_SIZE_MISMATCH' });
  }

  /** The object a repository holds, for a download. */
  async require(repo: Repository, oid: string): Promise<LfsObject> {
    const stored = LFS_OID.test(oid) ? (await this.rows.held(repo.id, [oid])).get(oid) : null;
    if (!stored) throw new NotFoundError('Object does not exist', { code: 'LFS_OBJECT_NOT_FOUND' });
    return stored;
  }

  /** KiB of the repository's LFS objects (counted in its size). */
  sizeKib(repositoryId: string): Promise<number> {
    return this.rows.sizeKib(repositoryId);
  }

  private async discard(key: string): Promise<void> {
    await this.blobs.delete(key).catch((error: unknown) => {
      this.logger.warn({ err: error, key }, 'could not delete an LFS upload blob');
    });
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { filetypeinfo } from 'magic-bytes.js';
import { Readable } from 'node:stream';
import { BadRequestError, NotFoundError, TooLargeError } from '../../platform/errors/domain-error';
import { BlobStore } from '../../platform/storage/blob-store';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import { OrganizationsService } from '../identity/organizations.service';
import type { ChatFile } from './entities/chat-file.entity';
import { NOT_FOUND } from './chats.service';
import { isUuid } from '../../platform/text/uuid';
import { ChatFilesRepository } from './repositories/chat-files.repository';

export const CHAT_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** The spec's file types for chats (images), recognized by their bytes. */
export const CHAT_FILE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export const chatFileKey = (id: string): string => `chat-files/${id}`;

/** The filename of `Content-Disposition: attachment; filename="x"` (RFC 6266 `filename*` too). */
export function dispositionFilename(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      return undefined;
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(header);
  return plain ? (plain[1] ?? plain[2] ?? '').replace(/\\(.)/g, '$1').trim() : undefined;
}

/** Control characters removed, trimmed, at most 255 bytes (Coder's stored name). */
export function storedName(name: string): string {
  let clean = [...name]
    .filter((char) => char.charCodeAt(0) > 0x1f && char.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  while (Buffer.byteLength(clean) > 255) clean = clean.slice(0, -1);
  return clean;
}

/**
 * Chat files (reference D.4, issue 19.5): images uploaded raw, checked by their bytes (not the
 * declared type), stored as blobs in one unit with their row.
 */
@Injectable()
export class ChatFilesService {
  private readonly logger = new Logger(ChatFilesService.name);

  constructor(
    private readonly files: ChatFilesRepository,
    private readonly blobs: BlobStore,
    private readonly authz: AuthorizationService,
    private readonly organizations: OrganizationsService,
  ) {}

  async upload(
    principal: Principal,
    input: {
      organizationId: string | undefined;
      contentType: string | undefined;
      filename: string | undefined;
      body: Readable;
    },
  ): Promise<ChatFile> {
    const memberships = await this.organizations.membershipsOf(principal.user.id);
    const organization = memberships.find(
      (membership) => membership.organizationUuid === input.organizationId?.toLowerCase(),
    );
    if (!input.organizationId || !isUuid(input.organizationId) || !organization)
      throw new BadRequestError('Invalid organization.', {
        fields: [{ field: 'organization', detail: 'an organization id of yours is required' }],
      });
    await this.authz.require(principal, 'create', {
      type: 'chat',
      ownerId: principal.user.uuid,
      orgId: organization.organizationUuid,
    });
    const name = storedName(input.filename ?? '');
    if (!name) throw new BadRequestError('Filename is required.');
    const declared = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const bytes = await readLimited(input.body, CHAT_FILE_MAX_BYTES);
    const detected = filetypeinfo(new Uint8Array(bytes.subarray(0, 1024))).find((info) => info.mime)?.mime;
    if (!detected || !(CHAT_FILE_TYPES as readonly string[]).includes(detected))
      throw new BadRequestError('Unsupported file type.', {
        detail: `Allowed types: ${CHAT_FILE_TYPES.join(', ')}.`,
      });
    if (declared !== 'application/octet-stream' && declared !== detected)
      throw new BadRequestError('File content type does not match Content-Type header.', {
        detail: `The content is ${detected}.`,
      });
    const id = await this.files.newId();
    const stored = await this.blobs.put(chatFileKey(id), Readable.from(bytes), {
      contentType: detected,
      maxBytes: CHAT_FILE_MAX_BYTES,
    });
    try {
      return await this.files.insert({
        id,
        organizationId: organization.organizationUuid,
        ownerId: principal.user.uuid,
        name,
        mimeType: detected,
        sizeBytes: stored.size,
        sha256: stored.sha256,
      });
    } catch (error) {
      await this.blobs.delete(chatFileKey(id)).catch(() => undefined); // no blob without its row
      throw error;
    }
  }

  /** A file its owner (or whoever may read the owner's chats) reads; else 404. */
  async require(principal: Principal, id: string): Promise<ChatFile> {
    if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
    const file = await this.files.findById(id);
    if (!file) throw new NotFoundError(NOT_FOUND);
    await this.authz.require(
      principal,
      'read',
      { type: 'chat', ownerId: file.ownerId, orgId: file.organizationId },
      { notFound: true },
    );
    return file;
  }

  async open(file: ChatFile) {
    return this.blobs.get(chatFileKey(file.id));
  }

  /** Removes files' blobs after their rows were deleted (retention). */
  async deleteBlobs(ids: string[]): Promise<void> {
    for (const id of ids)
      await this.blobs
        .delete(chatFileKey(id))
        .catch((error: unknown) => this.logger.warn({ err: error, id }, 'chat file blob not deleted'));
  }
}

async function readLimited(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > limit) {
      stream.resume(); // the rest is drained, so the 413 reaches a client that is still sending
      throw new TooLargeError('File too large.', {
        code: 'FILE_TOO_LARGE',
        detail: `Maximum file size is ${limit} bytes.`,
      });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

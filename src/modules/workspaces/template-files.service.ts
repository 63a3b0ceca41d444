import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '../../api/access/principal';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { InvalidError, NotFoundError, TooLargeError } from '../../platform/errors/domain-error';
import { AuthorizationService } from '../auth/authorization.service';
import { IdentityDirectory } from '../identity/identity-directory.service';
import type { TemplateFile } from './entities/template-file.entity';
import type { Template } from './entities/template.entity';
import type { TemplateVersion } from './entities/template-version.entity';
import { TemplateFilesRepository } from './repositories/template-files.repository';
import {
  definitionFromEntries,
  entriesFromDefinition,
  readTar,
  readZip,
  writeTar,
  writeZip,
} from './template-archive';
import type { TemplateDefinition } from './template-definition';

export const TAR_MIME = 'application/x-tar';
export const ZIP_MIME = 'application/zip';
/** Coder's upload limit (10 MiB). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
const NOT_FOUND = 'Resource not found or you do not have access to this resource';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TemplateAcl {
  users: { user: import('../identity/entities/user.entity').User; role: string }[];
  groups: { id: string; name: string; role: string }[];
}

/**
 * Coder's files and template ACLs for devplane templates (issue 48 item 6): uploaded archives (tar, zip
 * converted to tar) holding a definition (template-archive.ts), the archive of each version (the uploaded
 * one, or written from the inline definition at the first read) and the ACL entries of a template.
 */
@Injectable()
export class TemplateFilesService {
  constructor(
    private readonly rows: TemplateFilesRepository,
    private readonly authz: AuthorizationService,
    private readonly directory: IdentityDirectory,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Coder's `POST /files`: template authors (file create) upload a tar or zip archive. */
  async upload(
    principal: Principal,
    contentType: string | undefined,
    body: Buffer,
  ): Promise<{ file: TemplateFile; created: boolean }> {
    await this.authz.require(principal, 'create', { type: 'file', ownerId: principal.user.uuid });
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== TAR_MIME && type !== ZIP_MIME)
      throw new InvalidError(`Unsupported content type header "${type}".`, {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        fields: [{ field: 'Content-Type', detail: `must be ${TAR_MIME} or ${ZIP_MIME}` }],
      });
    if (body.length > MAX_FILE_BYTES)
      throw new TooLargeError(`File is too large; the limit is ${MAX_FILE_BYTES} bytes.`, {
        code: 'FILE_TOO_LARGE',
      });
    // A zip becomes a tar, as Coder stores it; a tar is kept as sent once it reads as one.
    const data = type === ZIP_MIME ? await writeTar(await readZip(body)) : body;
    if (type === TAR_MIME) await readTar(body);
    return this.rows.insertFile({
      hash: createHash('sha256').update(data).digest('hex'),
      createdBy: principal.user.uuid,
      mimetype: TAR_MIME,
      data,
    });
  }

  /**
   * A file the caller may read: its uploader, anyone with file read (template authors, owners), or a
   * reader of a template version made from it (`canReadVersion`); else 404.
   */
  async require(
    principal: Principal,
    id: string,
    canReadVersion: (versionId: string) => Promise<boolean>,
  ): Promise<TemplateFile> {
    if (!UUID.test(id)) throw new InvalidError('Invalid UUID.');
    const file = await this.rows.findFile(id.toLowerCase());
    if (!file) throw new NotFoundError(NOT_FOUND, { code: 'FILE_NOT_FOUND' });
    if (file.createdBy === principal.user.uuid) return file;
    if (await this.authz.authorize(principal, 'read', { type: 'file', ownerId: file.createdBy })) return file;
    for (const versionId of await this.rows.versionsOfFile(file.id))
      if (await canReadVersion(versionId)) return file;
    throw new NotFoundError(NOT_FOUND, { code: 'FILE_NOT_FOUND' });
  }

  /** The raw definition an uploaded archive holds. */
  async definitionOf(file: TemplateFile): Promise<Record<string, unknown>> {
    return definitionFromEntries(await readTar(file.data));
  }

  /** A zip of the stored tar (`?format=zip`). */
  async asZip(file: TemplateFile): Promise<Buffer> {
    return writeZip(await readTar(file.data));
  }

  async linkVersion(versionId: string, fileId: string): Promise<void> {
    await this.rows.linkVersion(versionId, fileId);
  }

  /** The id of the version's archive: the uploaded file, or the definition's archive written now. */
  async versionFileId(version: TemplateVersion): Promise<string> {
    const linked = await this.rows.versionFileId(version.id);
    if (linked) return linked;
    const data = await writeTar(
      entriesFromDefinition(version.definition as TemplateDefinition),
      new Date(version.createdAt),
    );
    const { file } = await this.rows.insertFile({
      hash: createHash('sha256').update(data).digest('hex'),
      createdBy: version.createdBy,
      mimetype: TAR_MIME,
      data,
    });
    await this.rows.linkVersion(version.id, file.id);
    return (await this.rows.versionFileId(version.id)) ?? file.id;
  }

  // ---------------------------------------------------------------- template ACL

  async acl(template: Template): Promise<TemplateAcl> {
    const entries = await this.rows.aclOf(template.id);
    const userEntries = entries.filter((entry) => entry.subjectType === 'user');
    const groupEntries = entries.filter((entry) => entry.subjectType === 'group');
    const users = await this.directory.usersByUuids(userEntries.map((entry) => entry.subjectId));
    const groups = groupEntries.length
      ? await this.directory.teamNamesByUuids(groupEntries.map((entry) => entry.subjectId))
      : [];
    return {
      users: userEntries
        .filter((entry) => users.has(entry.subjectId))
        .map((entry) => ({ user: users.get(entry.subjectId)!, role: entry.role })),
      groups: groupEntries.flatMap((entry) => {
        const group = groups.find((candidate) => candidate.uuid === entry.subjectId);
        return group ? [{ id: group.uuid, name: group.name, role: entry.role }] : [];
      }),
    };
  }

  /** Coder's PATCH: template update right; roles `use`, `admin`, or `""` (remove); unknown ids are 400. */
  async updateAcl(
    principal: Principal,
    template: Template,
    input: { userPerms: Record<string, string>; groupPerms: Record<string, string> },
  ): Promise<void> {
    await this.authz.require(principal, 'update', {
      type: 'template',
      id: template.id,
      orgId: template.organizationId,
    });
    const fields: { field: string; detail: string }[] = [];
    const check = (field: string, perms: Record<string, string>) => {
      for (const [id, role] of Object.entries(perms)) {
        if (!UUID.test(id)) fields.push({ field: `${field}.${id}`, detail: 'must be a uuid' });
        else if (!['use', 'admin', ''].includes(role))
          fields.push({
            field: `${field}.${id}`,
            detail: `"${role}" is not a valid role (use, admin, or "" to remove)`,
          });
      }
    };
    check('user_perms', input.userPerms);
    check('group_perms', input.groupPerms);
    if (!fields.length) {
      const userIds = Object.keys(input.userPerms).map((id) => id.toLowerCase());
      const known = await this.directory.usersByUuids(userIds);
      for (const id of userIds)
        if (!known.has(id)) fields.push({ field: `user_perms.${id}`, detail: 'Failed to find user' });
      const groupIds = Object.keys(input.groupPerms).map((id) => id.toLowerCase());
      const groups = groupIds.length ? await this.directory.teamNamesByUuids(groupIds) : [];
      for (const id of groupIds)
        if (!groups.some((group) => group.uuid === id))
          fields.push({ field: `group_perms.${id}`, detail: 'Failed to find group' });
    }
    if (fields.length)
      throw new InvalidError('Invalid request to update template ACL', { code: 'INVALID_ACL', fields });
    const changes = [
      ...Object.entries(input.userPerms).map(([id, role]) => ({
        subjectType: 'user',
        subjectId: id.toLowerCase(),
        role,
      })),
      ...Object.entries(input.groupPerms).map(([id, role]) => ({
        subjectType: 'group',
        subjectId: id.toLowerCase(),
        role,
      })),
    ];
    await this.transactions.run((tx) => this.rows.updateAcl(tx.manager, template.id, changes));
  }
}

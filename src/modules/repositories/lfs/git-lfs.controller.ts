import { Body, Get, HttpCode, Param, Post, Put, Req, Res, SetMetadata } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import {
  CurrentPrincipal,
  DocumentCredentials,
  Public,
  RESOURCE_ASSIGNMENT,
} from '../../../api/access/access.decorators';
import type { AnyPrincipal } from '../../../api/access/principal';
import { BodyStream, JsonBody, StreamBody } from '../../../api/body/body.decorators';
import { declaredBodySize } from '../../../api/body/request-body-stream';
import { sendBlobDownload } from '../../../api/download/blob-download';
import { GitController } from '../../../api/git/git-controller.decorator';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  UnauthenticatedError,
} from '../../../platform/errors/domain-error';
import { BlobStore } from '../../../platform/storage/blob-store';
import { missingGiteaScope } from '../../auth/token-scopes';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';
import { RepositoriesService } from '../repositories.service';
import { atLeast } from '../repository-permissions.service';
import { LfsAccessAssignment } from './lfs-access.assignment';
import { LfsBatchRequestDto, LfsPointerDto } from './lfs.dto';
import { LfsService } from './lfs.service';

export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';

function sendLfs(res: Response, status: number, body: unknown): void {
  res.status(status).type(LFS_MEDIA_TYPE).send(JSON.stringify(body));
}

/**
 * Git LFS (issue 49.7) under the repository's git URL: `POST {owner}/{repo}.git/info/lfs/objects/batch`
 * and the transfer routes its answer links to. Access as git smart HTTP (@RepoAccess protocol `git`):
 * anonymous callers get a Basic challenge for a private repository and for uploads, readers cannot
 * upload (403), keys need `write:repository` to upload. The locks API is not served (404: git-lfs
 * then says the remote does not support locking and pushes anyway).
 */
@DocumentPathParams()
@GitController('')
export class GitLfsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly lfs: LfsService,
    private readonly blobs: BlobStore,
  ) {}

  private baseUrl({ owner, repo }: RepositoryContext): string {
    return `${this.repositories.publicUrl}${encodeURIComponent(owner.name)}/${encodeURIComponent(repo.name)}.git/info/lfs`;
  }

  @Post(':owner/:repo/info/lfs/objects/batch')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @RepoAccess('read', { protocol: 'git' })
  @JsonBody({ limitBytes: 1024 * 1024 })
  @DocumentCredentials()
  @ApiOperation({
    summary:
      'Git LFS batch API (basic transfer): upload/download actions with short-lived signed links; an upload needs write access',
  })
  @ApiResponse({
    status: 200,
    description: '`application/vnd.git-lfs+json`: `{transfer, objects, hash_algo}`',
  })
  @ApiResponse({ status: 401, description: 'Basic challenge: a private repository, or an upload' })
  @ApiResponse({ status: 403, description: 'an upload without write access or `write:repository`' })
  @ApiResponse({ status: 422, description: 'no `basic` among the transfers' })
  async batch(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: AnyPrincipal | undefined,
    @Body() body: LfsBatchRequestDto,
    @Res() res: Response,
  ): Promise<void> {
    if (body.hash_algo !== undefined && body.hash_algo !== 'sha256')
      throw new ConflictError('Unsupported hash algorithm', { code: 'LFS_BATCH' });
    if (body.transfers?.length && !body.transfers.includes('basic'))
      throw new InvalidError('Unsupported transfer adapter: devplane speaks basic', { code: 'LFS_BATCH' });
    if (body.operation === 'upload') this.assertMayUpload(context, principal);
    const objects = await this.lfs.batch(context.repo, {
      operation: body.operation,
      objects: body.objects,
      baseUrl: this.baseUrl(context),
      userId: context.viewer?.id ?? null,
    });
    sendLfs(res, 200, { transfer: 'basic', objects, hash_algo: 'sha256' });
  }

  /** An upload batch: the same refusals as a push (git-receive-pack), decided after the body was read. */
  private assertMayUpload(
    { repo, mode, viewer }: RepositoryContext,
    principal: AnyPrincipal | undefined,
  ): void {
    if (!viewer) throw new UnauthenticatedError('missing', 'Authentication required');
    if (principal?.kind === 'user') {
      const problem = missingGiteaScope(principal, ['repository'], 'POST');
      if (problem) throw new ForbiddenError(problem, 'scope');
    }
    if (!atLeast(mode, 'write'))
      throw new ForbiddenError('User permission denied to push to this repository.');
    if (repo.isArchived)
      throw new ForbiddenError(
        'This repository is archived. You can view files and clone it, but cannot push.',
        'permission',
        {
          code: 'REPOSITORY_ARCHIVED',
        },
      );
    if (repo.isMirror)
      throw new ForbiddenError('mirror repository is read-only', 'permission', { code: 'REPOSITORY_MIRROR' });
  }

  @Get(':owner/:repo/info/lfs/objects/:oid')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @SetMetadata(RESOURCE_ASSIGNMENT, LfsAccessAssignment)
  @RepoAccess('read', { protocol: 'git' })
  @DocumentCredentials()
  @ApiOperation({
    summary: "Git LFS: an object's bytes (a batch answer's signed link, or the caller's credentials)",
  })
  @ApiResponse({ status: 200, description: 'the object (`application/octet-stream`, byte ranges served)' })
  @ApiResponse({ status: 404, description: 'the repository holds no such object' })
  async download(
    @Repo() context: RepositoryContext,
    @Param('oid') oid: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const object = await this.lfs.require(context.repo, oid);
    await sendBlobDownload(this.blobs, req, res, {
      key: object.blobKey,
      size: Number(object.size),
      etag: object.oid,
      fileName: object.oid,
      contentType: 'application/octet-stream',
      lastModified: object.createdAt,
    });
  }

  @Put(':owner/:repo/info/lfs/objects/:oid')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @SetMetadata(RESOURCE_ASSIGNMENT, LfsAccessAssignment)
  @RepoAccess('write', { protocol: 'git' })
  @StreamBody()
  @DocumentCredentials()
  @ApiOperation({
    summary:
      'Git LFS: upload an object (SHA-256 and size checked while streaming; at most LFS_MAX_FILE_SIZE)',
  })
  @ApiResponse({ status: 200, description: 'stored' })
  @ApiResponse({ status: 413, description: 'over LFS_MAX_FILE_SIZE' })
  @ApiResponse({ status: 422, description: 'the content does not hash to the oid' })
  async upload(
    @Repo() context: RepositoryContext,
    @Param('oid') oid: string,
    @BodyStream() body: Readable,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.lfs.upload(context.repo, oid, body, declaredBodySize(req));
    res.status(200).end();
  }

  @Post(':owner/:repo/info/lfs/verify')
  @HttpCode(200)
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @SetMetadata(RESOURCE_ASSIGNMENT, LfsAccessAssignment)
  @RepoAccess('write', { protocol: 'git' })
  @JsonBody({ limitBytes: 64 * 1024 })
  @DocumentCredentials()
  @ApiOperation({ summary: 'Git LFS: verify an upload (`{oid, size}`): 200 when the repository holds it' })
  @ApiResponse({ status: 200, description: 'held' })
  @ApiResponse({ status: 404, description: 'not held' })
  async verify(
    @Repo() context: RepositoryContext,
    @Body() body: LfsPointerDto,
    @Res() res: Response,
  ): Promise<void> {
    await this.lfs.verify(context.repo, body);
    sendLfs(res, 200, {});
  }
}

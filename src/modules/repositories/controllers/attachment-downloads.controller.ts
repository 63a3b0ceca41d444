import { Get, Head, Param, Req, Res } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { sendBlobDownload } from '../../../api/download/blob-download';
import { DownloadController } from '../../../api/download/download-controller.decorator';
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { BlobStore } from '../../../platform/storage/blob-store';
import { CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { missingGiteaScope } from '../../auth/token-scopes';
import type { Attachment } from '../attachments/attachment.entity';
import { AttachmentsService } from '../attachments/attachments.service';
import { ReleasesService } from '../releases/releases.service';
import { RepositoriesService } from '../repositories.service';
import { atLeast, RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const NOT_FOUND = { description: 'plain text `not found`' };

function attachmentNotFound(): NotFoundError {
  return new NotFoundError('attachment does not exist', { code: 'ATTACHMENT_NOT_FOUND' });
}

/**
 * Attachment downloads (Gitea's web routes): `/attachments/{uuid}` (the Attachment JSON's
 * `browser_download_url`) and `/{owner}/{repo}/releases/download/{tag}/{name}`. The repository's read
 * permission applies (404 otherwise, also for a draft release's files to those who may not write).
 */
@DocumentPathParams()
@DownloadController()
export class AttachmentDownloadsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly releases: ReleasesService,
    private readonly attachments: AttachmentsService,
    private readonly blobs: BlobStore,
  ) {}

  private async send(
    attachment: Attachment,
    principal: Principal | undefined,
    req: Request,
    res: Response,
  ): Promise<void> {
    await this.attachments.beforeDownload(attachment, principal?.user ?? null, requestSnapshot(req, null));
    await sendBlobDownload(this.blobs, req, res, {
      key: attachment.blobKey,
      size: Number(attachment.size),
      etag: attachment.sha256,
      fileName: attachment.name,
      contentType: attachment.mimeType || 'application/octet-stream',
      lastModified: attachment.createdAt,
      beforeBody: () => this.attachments.recordDownload(attachment),
    });
  }

  @Get('attachments/:uuid')
  @Head('attachments/:uuid')
  @Public({ scopes: ['repository', 'issue'], scopeCheck: 'resource' })
  @ApiOperation({ summary: 'Download an attachment (byte ranges, ETag)' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the file' })
  @ApiResponse({ status: 206, description: 'a byte range' })
  @ApiResponse({ status: 404, ...NOT_FOUND })
  @ApiResponse({ status: 416, description: 'range not satisfiable' })
  async byUuid(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('uuid') uuid: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const attachment = await this.attachments.findByUuid(uuid);
    if (!attachment) throw attachmentNotFound();
    const repo = await this.repositories.findById(attachment.repositoryId);
    if (!repo) throw attachmentNotFound();
    const mode = await this.permissions.require(principal?.user ?? null, repo, 'read');
    // Issue 31.6: a key reads a private repository's files with read:issue (issue and comment
    // attachments) or read:repository (release attachments), as Gitea's API routes for them.
    if (principal && repo.isPrivate) {
      const problem = missingGiteaScope(principal, [attachment.releaseId ? 'repository' : 'issue'], 'GET');
      if (problem) throw new ForbiddenError(problem, 'scope');
    }
    if (attachment.release?.isDraft && !atLeast(mode, 'write')) throw attachmentNotFound();
    await this.send(attachment, principal, req, res);
  }

  @Get(':owner/:repo/releases/download/:tag/:name')
  @Head(':owner/:repo/releases/download/:tag/:name')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @ApiOperation({ summary: 'Download a release attachment by tag and file name' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the file' })
  @ApiResponse({ status: 206, description: 'a byte range' })
  @ApiResponse({ status: 404, ...NOT_FOUND })
  @RepoAccess('read')
  async byRelease(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: { owner: string; repo: string; tag: string; name: string },
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const release = await this.releases.requireByTag(
      context.repo,
      params.tag,
      atLeast(context.mode, 'write'),
    );
    const attachment = await this.attachments.findReleaseAsset(release.id, params.name);
    if (!attachment) throw attachmentNotFound();
    await this.send(attachment, principal, req, res);
  }
}

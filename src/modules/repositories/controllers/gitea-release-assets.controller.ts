import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { StreamBody } from '../../../api/body/body.decorators';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { withUploadedFile } from '../attachments/attachment-upload';
import { AttachmentsService } from '../attachments/attachments.service';
import { presentGiteaAttachment } from '../attachments/gitea-attachment.presenter';
import { AttachmentNameQueryDto, EditAttachmentOptionsDto } from '../dto/attachments.dto';
import { GiteaAssetDto } from '../issues/gitea-issue.presenter';
import { ReleasesService } from '../releases/releases.service';
import { RepositoriesService } from '../repositories.service';
import { atLeast, RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type ReleaseParams = { owner: string; repo: string; id: string };
type AssetParams = ReleaseParams & { attachment_id: string };

function attachmentsDisabled(): NotFoundError {
  return new NotFoundError('attachments are disabled', { code: 'ATTACHMENTS_DISABLED' });
}

/** Gitea's release asset routes (spec 3 "Release attachments"), token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/releases/:id/assets')
export class GiteaReleaseAssetsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly releases: ReleasesService,
    private readonly attachments: AttachmentsService,
  ) {}

  private asset(row: Parameters<typeof presentGiteaAttachment>[0]): GiteaAssetDto {
    return presentGiteaAttachment(row, this.repositories.publicUrl);
  }

  @Get()
  @Public()
  @ApiOperation({ summary: "List a release's attachments (sorted by name, not paged)" })
  @ApiOkResponse({ type: [GiteaAssetDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @Param() params: ReleaseParams,
  ): Promise<GiteaAssetDto[] | undefined> {
    const release = await this.releases.require(context.repo, params.id, atLeast(context.mode, 'write'));
    return (await this.attachments.listOfRelease(release.id)).map((row) => this.asset(row));
  }

  @Get(':attachment_id')
  @Public()
  @ApiOperation({ summary: 'Get a release attachment' })
  @ApiOkResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @Param() params: AssetParams,
  ): Promise<GiteaAssetDto | undefined> {
    const release = await this.releases.require(context.repo, params.id, atLeast(context.mode, 'write'));
    return this.asset(
      await this.attachments.requireOf(context.repo, { kind: 'release', release }, params.attachment_id),
    );
  }

  @Post()
  @StreamBody()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Upload a release attachment: multipart field `attachment`, or the raw body with `?name=`',
  })
  @ApiConsumes('multipart/form-data', 'application/octet-stream')
  @ApiQuery({
    name: 'name',
    required: false,
    description: 'the file name (required for a raw body; overrides the multipart file name)',
  })
  @ApiBody({ schema: { type: 'object', properties: { attachment: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 400, ...ERROR, description: 'no name, forbidden type' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 413, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: ReleaseParams,
    @Query() query: AttachmentNameQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaAssetDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const release = await this.releases.require(context.repo, params.id, true);
    if (!this.attachments.settings.enabled) throw attachmentsDisabled();
    const row = await withUploadedFile(
      req,
      res,
      { nameOverride: query.name, maxBytes: this.attachments.maxBytes('release'), allowRaw: true },
      (name, body, expectedSize) =>
        this.attachments.upload({
          repo: context.repo,
          uploader: principal.user,
          target: { kind: 'release', release },
          name,
          body,
          expectedSize,
          request: requestSnapshot(req),
        }),
    );
    res.status(201);
    return this.asset(row);
  }

  @Patch(':attachment_id')
  @HttpCode(201)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Rename a release attachment (answers 201 as Gitea does)' })
  @ApiCreatedResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR, description: 'forbidden type for the new name' })
  @RepoAccess('write')
  async edit(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: AssetParams,
    @Body() body: EditAttachmentOptionsDto,
    @Req() req: Request,
  ): Promise<GiteaAssetDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const release = await this.releases.require(context.repo, params.id, true);
    const row = await this.attachments.requireOf(
      context.repo,
      { kind: 'release', release },
      params.attachment_id,
    );
    return this.asset(
      await this.attachments.rename(context.repo, row, principal.user, body.name, requestSnapshot(req)),
    );
  }

  @Delete(':attachment_id')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a release attachment' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write')
  async delete(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: AssetParams,
    @Req() req: Request,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const release = await this.releases.require(context.repo, params.id, true);
    const row = await this.attachments.requireOf(
      context.repo,
      { kind: 'release', release },
      params.attachment_id,
    );
    await this.attachments.remove(context.repo, row, principal.user, requestSnapshot(req));
  }
}

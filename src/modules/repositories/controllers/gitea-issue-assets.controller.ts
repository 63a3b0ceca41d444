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
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../../identity/entities/user.entity';
import { withUploadedFile } from '../attachments/attachment-upload';
import { type AttachmentTarget, AttachmentsService } from '../attachments/attachments.service';
import { presentGiteaAttachment } from '../attachments/gitea-attachment.presenter';
import { AttachmentNameQueryDto, EditAttachmentOptionsDto } from '../dto/attachments.dto';
import { GiteaAssetDto } from '../issues/gitea-issue.presenter';
import {
  COMMENT_EDIT_REFUSAL,
  ISSUE_WRITE_REFUSAL,
  IssuesService,
  mayWriteIssue,
} from '../issues/issues.service';
import { RepositoriesService } from '../repositories.service';
import { type AccessMode, atLeast, RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type IssueParams = { owner: string; repo: string; index: string };
type CommentParams = { owner: string; repo: string; id: string };
type Scope = 'issue' | 'comment';

/**
 * Gitea's issue and comment attachment routes (spec 3 "Issue attachments", "Comment attachments"):
 * multipart only; 404 when attachments are disabled; token scope `issue`.
 */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/issues')
export class GiteaIssueAssetsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly issues: IssuesService,
    private readonly attachments: AttachmentsService,
  ) {}

  private asset(row: Parameters<typeof presentGiteaAttachment>[0]): GiteaAssetDto {
    return presentGiteaAttachment(row, this.repositories.publicUrl);
  }

  private async resolve(
    scope: Scope,
    params: IssueParams | CommentParams,
    user: User | null,
    context: RepositoryContext,
    write: boolean,
  ): Promise<{ context: RepositoryContext; target: AttachmentTarget }> {
    if (!this.attachments.settings.enabled)
      throw new NotFoundError('attachments are disabled', { code: 'ATTACHMENTS_DISABLED' });
    if (write) this.permissions.assertNotArchived(context.repo, context.owner.name);
    if (scope === 'issue') {
      const issue = await this.issues.require(context.repo, (params as IssueParams).index);
      if (write && !mayWriteIssue(user, issue, context.mode)) throw new ForbiddenError(ISSUE_WRITE_REFUSAL);
      return { context, target: { kind: 'issue', issue } };
    }
    const { comment, issue } = await this.issues.requireComment(context.repo, (params as CommentParams).id);
    if (write && !this.mayEditCommentAssets(user, comment.posterId, context.mode))
      throw new ForbiddenError(COMMENT_EDIT_REFUSAL);
    return { context, target: { kind: 'comment', comment, issue } };
  }

  /** Signed in and (the comment's poster, a repository administrator or a site administrator) and may write issues. */
  private mayEditCommentAssets(user: User | null, posterId: string | null, mode: AccessMode): boolean {
    if (!user || !atLeast(mode, 'write')) return false;
    return posterId === user.id || atLeast(mode, 'admin') || user.isAdmin;
  }

  private async list(
    scope: Scope,
    params: IssueParams | CommentParams,
    principal: Principal | undefined,
    context: RepositoryContext,
  ): Promise<GiteaAssetDto[] | undefined> {
    const resolved = await this.resolve(scope, params, principal?.user ?? null, context, false);
    return (await this.attachments.listOf(resolved.target)).map((row) => this.asset(row));
  }

  private async getOne(
    scope: Scope,
    params: (IssueParams | CommentParams) & { attachment_id: string },
    principal: Principal | undefined,
    context: RepositoryContext,
  ): Promise<GiteaAssetDto | undefined> {
    const resolved = await this.resolve(scope, params, principal?.user ?? null, context, false);
    return this.asset(
      await this.attachments.requireOf(resolved.context.repo, resolved.target, params.attachment_id),
    );
  }

  private async create(
    scope: Scope,
    params: IssueParams | CommentParams,
    principal: Principal,
    name: string | undefined,
    req: Request,
    res: Response,
    context: RepositoryContext,
  ): Promise<GiteaAssetDto | undefined> {
    const resolved = await this.resolve(scope, params, principal.user, context, true);
    const row = await withUploadedFile(
      req,
      res,
      { nameOverride: name, maxBytes: this.attachments.maxBytes(resolved.target.kind), allowRaw: false },
      (fileName, body) =>
        this.attachments.upload({
          repo: resolved.context.repo,
          uploader: principal.user,
          target: resolved.target,
          name: fileName,
          body,
          request: requestSnapshot(req),
        }),
    );
    return this.asset(row);
  }

  private async edit(
    scope: Scope,
    params: (IssueParams | CommentParams) & { attachment_id: string },
    principal: Principal,
    name: string | undefined,
    req: Request,
    context: RepositoryContext,
  ): Promise<GiteaAssetDto | undefined> {
    const resolved = await this.resolve(scope, params, principal.user, context, true);
    const row = await this.attachments.requireOf(
      resolved.context.repo,
      resolved.target,
      params.attachment_id,
    );
    return this.asset(
      await this.attachments.rename(resolved.context.repo, row, principal.user, name, requestSnapshot(req)),
    );
  }

  private async remove(
    scope: Scope,
    params: (IssueParams | CommentParams) & { attachment_id: string },
    principal: Principal,
    req: Request,
    context: RepositoryContext,
  ): Promise<void> {
    const resolved = await this.resolve(scope, params, principal.user, context, true);
    const row = await this.attachments.requireOf(
      resolved.context.repo,
      resolved.target,
      params.attachment_id,
    );
    await this.attachments.remove(resolved.context.repo, row, principal.user, requestSnapshot(req));
  }

  // ---- comment attachments (declared first: `comments/...` must not be taken for an issue index) ----

  @Get('comments/:id/assets')
  @Public()
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: "List a comment's attachments" })
  @ApiOkResponse({ type: [GiteaAssetDto] })
  @ApiResponse({ status: 404, ...ERROR })
  listCommentAssets(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: CommentParams,
    @Repo() context: RepositoryContext,
  ) {
    return this.list('comment', params, principal, context);
  }

  @Get('comments/:id/assets/:attachment_id')
  @Public()
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Get a comment attachment' })
  @ApiOkResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 404, ...ERROR })
  getCommentAsset(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: CommentParams & { attachment_id: string },
    @Repo() context: RepositoryContext,
  ) {
    return this.getOne('comment', params, principal, context);
  }

  @Post('comments/:id/assets')
  @StreamBody()
  @Authenticated({ scopes: ['issue'] })
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Upload a comment attachment (multipart field `attachment`)' })
  @ApiConsumes('multipart/form-data')
  @ApiQuery({ name: 'name', required: false })
  @ApiBody({ schema: { type: 'object', properties: { attachment: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 413, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  createCommentAsset(
    @CurrentPrincipal() principal: Principal,
    @Param() params: CommentParams,
    @Query() query: AttachmentNameQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Repo() context: RepositoryContext,
  ) {
    return this.create('comment', params, principal, query.name, req, res, context);
  }

  @Patch('comments/:id/assets/:attachment_id')
  @HttpCode(201)
  @Authenticated({ scopes: ['issue'] })
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Rename a comment attachment (answers 201 as Gitea does)' })
  @ApiCreatedResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  editCommentAsset(
    @CurrentPrincipal() principal: Principal,
    @Param() params: CommentParams & { attachment_id: string },
    @Body() body: EditAttachmentOptionsDto,
    @Req() req: Request,
    @Repo() context: RepositoryContext,
  ) {
    return this.edit('comment', params, principal, body.name, req, context);
  }

  @Delete('comments/:id/assets/:attachment_id')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Delete a comment attachment' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  deleteCommentAsset(
    @CurrentPrincipal() principal: Principal,
    @Param() params: CommentParams & { attachment_id: string },
    @Req() req: Request,
    @Repo() context: RepositoryContext,
  ) {
    return this.remove('comment', params, principal, req, context);
  }

  // ---- issue attachments ----

  @Get(':index/assets')
  @Public()
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: "List an issue's attachments (not its comments')" })
  @ApiOkResponse({ type: [GiteaAssetDto] })
  @ApiResponse({ status: 404, ...ERROR })
  listIssueAssets(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: IssueParams,
    @Repo() context: RepositoryContext,
  ) {
    return this.list('issue', params, principal, context);
  }

  @Get(':index/assets/:attachment_id')
  @Public()
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Get an issue attachment' })
  @ApiOkResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 404, ...ERROR })
  getIssueAsset(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: IssueParams & { attachment_id: string },
    @Repo() context: RepositoryContext,
  ) {
    return this.getOne('issue', params, principal, context);
  }

  @Post(':index/assets')
  @StreamBody()
  @Authenticated({ scopes: ['issue'] })
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Upload an issue attachment (multipart field `attachment`)' })
  @ApiConsumes('multipart/form-data')
  @ApiQuery({ name: 'name', required: false })
  @ApiBody({ schema: { type: 'object', properties: { attachment: { type: 'string', format: 'binary' } } } })
  @ApiCreatedResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 413, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  createIssueAsset(
    @CurrentPrincipal() principal: Principal,
    @Param() params: IssueParams,
    @Query() query: AttachmentNameQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Repo() context: RepositoryContext,
  ) {
    return this.create('issue', params, principal, query.name, req, res, context);
  }

  @Patch(':index/assets/:attachment_id')
  @HttpCode(201)
  @Authenticated({ scopes: ['issue'] })
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Rename an issue attachment (answers 201 as Gitea does)' })
  @ApiCreatedResponse({ type: GiteaAssetDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  editIssueAsset(
    @CurrentPrincipal() principal: Principal,
    @Param() params: IssueParams & { attachment_id: string },
    @Body() body: EditAttachmentOptionsDto,
    @Req() req: Request,
    @Repo() context: RepositoryContext,
  ) {
    return this.edit('issue', params, principal, body.name, req, context);
  }

  @Delete(':index/assets/:attachment_id')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @RepoAccess('read', { scope: 'issue' })
  @ApiOperation({ summary: 'Delete an issue attachment' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  deleteIssueAsset(
    @CurrentPrincipal() principal: Principal,
    @Param() params: IssueParams & { attachment_id: string },
    @Req() req: Request,
    @Repo() context: RepositoryContext,
  ) {
    return this.remove('issue', params, principal, req, context);
  }
}

import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import { Authenticated, Public } from '../../../api/access/access.decorators';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { repoLinks } from '../contents/gitea-contents.presenter';
import { CreateLabelOptionDto, EditLabelOptionDto, IssueLabelsOptionDto } from '../dto/labels.dto';
import { IssuesService } from '../issues/issues.service';
import type { Label } from '../labels/label.entity';
import { LabelsService } from '../labels/labels.service';
import { presentGiteaLabel } from '../labels/gitea-label.presenter';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type LabelParams = { owner: string; repo: string; id: string };
type IssueParams = { owner: string; repo: string; index: string };

/** Gitea's label routes: repository labels and the labels of issues and pulls. Token scope `issue`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo')
export class GiteaLabelsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly labels: LabelsService,
    private readonly issues: IssuesService,
  ) {}

  private present(context: RepositoryContext) {
    const api = repoLinks(this.repositories.publicUrl, context.owner.name, context.repo.name).api;
    return (label: Label) => presentGiteaLabel(label, api);
  }

  @Get('labels')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "A repository's labels" })
  @ApiOkResponse({ description: 'Gitea `[]Label`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async list(
    @Repo() context: RepositoryContext,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<unknown>> {
    const paging = giteaPaging(query);
    const all = await this.labels.list(context.repo);
    const items = all.slice(paging.offset, paging.offset + paging.limit).map(this.present(context));
    return new GiteaPage<unknown>(items, all.length, paging);
  }

  @Post('labels')
  @HttpCode(201)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Create a label' })
  @ApiCreatedResponse({ description: 'Gitea `Label`' })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async create(@Repo() context: RepositoryContext, @Body() body: CreateLabelOptionDto): Promise<unknown> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const label = await this.labels.create(context.repo, {
      name: body.name,
      color: body.color,
      description: body.description,
      exclusive: body.exclusive,
      isArchived: body.is_archived,
    });
    return this.present(context)(label);
  }

  @Get('labels/:id')
  @Public()
  @ApiOperation({ summary: 'One label' })
  @ApiOkResponse({ description: 'Gitea `Label`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async get(@Repo() context: RepositoryContext, @Param() params: LabelParams): Promise<unknown> {
    return this.present(context)(await this.labels.require(context.repo, params.id));
  }

  @Patch('labels/:id')
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Edit a label' })
  @ApiOkResponse({ description: 'Gitea `Label`' })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async edit(
    @Repo() context: RepositoryContext,
    @Param() params: LabelParams,
    @Body() body: EditLabelOptionDto,
  ): Promise<unknown> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const label = await this.labels.edit(context.repo, params.id, {
      name: body.name,
      color: body.color,
      description: body.description,
      exclusive: body.exclusive,
      isArchived: body.is_archived,
    });
    return this.present(context)(label);
  }

  @Delete('labels/:id')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Delete a label (it leaves every issue)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async delete(@Repo() context: RepositoryContext, @Param() params: LabelParams): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.labels.delete(context.repo, params.id);
  }

  @Get('issues/:index/labels')
  @Public()
  @ApiOperation({ summary: "An issue's labels" })
  @ApiOkResponse({ description: 'Gitea `[]Label`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async issueLabels(@Repo() context: RepositoryContext, @Param() params: IssueParams): Promise<unknown> {
    const issue = await this.issues.require(context.repo, params.index);
    return (await this.labels.ofIssue(issue.id)).map(this.present(context));
  }

  @Post('issues/:index/labels')
  @HttpCode(200)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Add labels (ids or names) to an issue' })
  @ApiOkResponse({ description: 'Gitea `[]Label` (all of the issue)' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async addIssueLabels(
    @Repo() context: RepositoryContext,
    @Param() params: IssueParams,
    @Body() body: IssueLabelsOptionDto,
  ): Promise<unknown> {
    const issue = await this.issues.require(context.repo, params.index);
    return (await this.labels.setOnIssue(context.repo, issue.id, body.labels ?? [], false)).map(
      this.present(context),
    );
  }

  @Put('issues/:index/labels')
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: "Replace an issue's labels" })
  @ApiOkResponse({ description: 'Gitea `[]Label`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async replaceIssueLabels(
    @Repo() context: RepositoryContext,
    @Param() params: IssueParams,
    @Body() body: IssueLabelsOptionDto,
  ): Promise<unknown> {
    const issue = await this.issues.require(context.repo, params.index);
    return (await this.labels.setOnIssue(context.repo, issue.id, body.labels ?? [], true)).map(
      this.present(context),
    );
  }

  @Delete('issues/:index/labels')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: "Remove all of an issue's labels" })
  @ApiNoContentResponse({ description: 'cleared' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async clearIssueLabels(@Repo() context: RepositoryContext, @Param() params: IssueParams): Promise<void> {
    await this.labels.clearIssue((await this.issues.require(context.repo, params.index)).id);
  }

  @Delete('issues/:index/labels/:id')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Remove one label from an issue' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async removeIssueLabel(
    @Repo() context: RepositoryContext,
    @Param() params: IssueParams & { id: string },
  ): Promise<void> {
    const issue = await this.issues.require(context.repo, params.index);
    await this.labels.removeFromIssue(context.repo, issue.id, params.id);
  }
}

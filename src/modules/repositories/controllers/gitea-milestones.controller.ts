import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import { Authenticated, Public } from '../../../api/access/access.decorators';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { GiteaMilestoneDto, presentGiteaMilestone } from '../milestones/gitea-milestone.presenter';
import type { Milestone } from '../milestones/milestone.entity';
import {
  CreateMilestoneOptionDto,
  EditMilestoneOptionDto,
  MilestoneListQueryDto,
} from '../milestones/milestones.dto';
import { MilestonesService } from '../milestones/milestones.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type MilestoneParams = { owner: string; repo: string; id: string };

/** An RFC 3339 due date (validated by @GoTime), `undefined` when absent. */
function dueOn(value: string | undefined): Date | undefined {
  return value === undefined || value === '' ? undefined : new Date(value);
}

/** Gitea's milestone routes (`/repos/{o}/{r}/milestones`), token scope `issue`; writes need write access. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/milestones')
export class GiteaMilestonesController {
  constructor(
    private readonly milestones: MilestonesService,
    private readonly permissions: RepositoryPermissions,
  ) {}

  private async present(milestone: Milestone): Promise<GiteaMilestoneDto> {
    return presentGiteaMilestone(milestone, (await this.milestones.counts([milestone.id])).get(milestone.id));
  }

  @Get()
  @GiteaPaged()
  @Public()
  @ApiOperation({
    summary: "A repository's milestones (`state` open|closed|all, `name`), with open/closed counts",
  })
  @ApiOkResponse({ type: [GiteaMilestoneDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async list(
    @Repo() context: RepositoryContext,
    @Query() query: MilestoneListQueryDto,
  ): Promise<GiteaPage<GiteaMilestoneDto>> {
    const paging = giteaPaging(query);
    const state = query.state === 'closed' || query.state === 'all' ? query.state : 'open';
    const { items, total } = await this.milestones.list(context.repo, {
      state,
      name: query.name?.trim() || undefined,
      ...paging,
    });
    // The page's counts in one grouped query.
    const counts = await this.milestones.counts(items.map((milestone) => milestone.id));
    return new GiteaPage(
      items.map((milestone) => presentGiteaMilestone(milestone, counts.get(milestone.id))),
      total,
      paging,
    );
  }

  @Post()
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Create a milestone' })
  @ApiCreatedResponse({ type: GiteaMilestoneDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async create(
    @Repo() context: RepositoryContext,
    @Body() body: CreateMilestoneOptionDto,
  ): Promise<GiteaMilestoneDto> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const milestone = await this.milestones.create(context.repo, {
      title: body.title,
      description: body.description,
      state: body.state,
      dueOn: dueOn(body.due_on),
    });
    return presentGiteaMilestone(milestone);
  }

  @Get(':id')
  @Public()
  @ApiOperation({ summary: 'One milestone (by id or name)' })
  @ApiOkResponse({ type: GiteaMilestoneDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async get(
    @Repo() context: RepositoryContext,
    @Param() params: MilestoneParams,
  ): Promise<GiteaMilestoneDto> {
    return this.present(await this.milestones.require(context.repo, params.id));
  }

  @Patch(':id')
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Edit a milestone (title, description, state, due_on)' })
  @ApiOkResponse({ type: GiteaMilestoneDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async edit(
    @Repo() context: RepositoryContext,
    @Param() params: MilestoneParams,
    @Body() body: EditMilestoneOptionDto,
  ): Promise<GiteaMilestoneDto> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const milestone = await this.milestones.edit(context.repo, params.id, {
      title: body.title,
      description: body.description,
      state: body.state,
      dueOn: dueOn(body.due_on),
    });
    return this.present(milestone);
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Delete a milestone (its issues keep no milestone)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write', { scope: 'issue' })
  async delete(@Repo() context: RepositoryContext, @Param() params: MilestoneParams): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.milestones.delete(context.repo, params.id);
  }
}

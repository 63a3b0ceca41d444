import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { repoLinks } from '../contents/gitea-contents.presenter';
import { CreateStatusOptionDto, StatusListQueryDto } from '../dto/statuses.dto';
import { presentGiteaRepository } from '../presenters/gitea-repository.presenter';
import { RepositoriesService } from '../repositories.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';
import type { CommitStatus } from '../statuses/commit-status.entity';
import { CommitStatusesService } from '../statuses/commit-statuses.service';
import { latestPerContext, worstState } from '../statuses/status-rules';
import { presentCommitStatus } from '../statuses/gitea-status.presenter';

const ERROR = { description: 'Gitea error `{message, url}`' };
const joined = (value: string | string[]) => (Array.isArray(value) ? value.join('/') : value);

/** Gitea's commit status routes (routers/api/v1/repo/status.go). Token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo')
export class GiteaStatusesController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly statuses: CommitStatusesService,
  ) {}

  private present(context: RepositoryContext) {
    const links = repoLinks(this.repositories.publicUrl, context.owner.name, context.repo.name);
    return (status: CommitStatus) =>
      presentCommitStatus(status, links, context.viewer, this.repositories.publicUrl);
  }

  private page(context: RepositoryContext, statuses: CommitStatus[], query: StatusListQueryDto) {
    const paging = giteaPaging(query);
    let list = query.state ? statuses.filter((status) => status.state === query.state) : statuses;
    if (query.sort === 'oldest' || query.sort === 'leastindex') list = [...list].reverse();
    if (query.sort === 'leastupdate') list = [...list].sort((a, b) => +a.updatedAt - +b.updatedAt);
    const items = list.slice(paging.offset, paging.offset + paging.limit).map(this.present(context));
    return new GiteaPage<unknown>(items, list.length, paging);
  }

  @Post('statuses/:sha')
  @HttpCode(201)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Report a status of a commit' })
  @ApiCreatedResponse({ description: 'Gitea `CommitStatus`' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('write')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param('sha') sha: string,
    @Body() body: CreateStatusOptionDto,
  ): Promise<unknown> {
    const status = await this.statuses.create(context.repo, principal.user, sha, {
      state: body.state,
      context: body.context,
      description: body.description,
      targetUrl: body.target_url,
    });
    return this.present(context)(status);
  }

  @Get('statuses/:sha')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "A commit's statuses, newest first" })
  @ApiOkResponse({ description: 'Gitea `[]CommitStatus`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @Param('sha') sha: string,
    @Query() query: StatusListQueryDto,
  ): Promise<GiteaPage<unknown>> {
    return this.page(context, (await this.statuses.ofRef(context.repo, sha)).statuses, query);
  }

  @Get('commits/*ref/statuses')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: 'The statuses of the commit a ref names, newest first' })
  @ApiParam({ name: 'ref', description: 'branch, tag or commit' })
  @ApiOkResponse({ description: 'Gitea `[]CommitStatus`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async listByRef(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; ref: string | string[] },
    @Query() query: StatusListQueryDto,
  ): Promise<GiteaPage<unknown>> {
    return this.page(context, (await this.statuses.ofRef(context.repo, joined(params.ref))).statuses, query);
  }

  @Get('commits/*ref/status')
  @Public()
  @ApiOperation({
    summary: 'The combined status of the commit a ref names (the newest per context; the worst state)',
  })
  @ApiParam({ name: 'ref', description: 'branch, tag or commit' })
  @ApiOkResponse({ description: 'Gitea `CombinedStatus`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async combined(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; ref: string | string[] },
  ): Promise<unknown> {
    const { sha, statuses } = await this.statuses.ofRef(context.repo, joined(params.ref));
    const latest = latestPerContext(statuses);
    const links = repoLinks(this.repositories.publicUrl, context.owner.name, context.repo.name);
    return {
      state: worstState(latest.map((status) => status.state)),
      sha,
      total_count: latest.length,
      statuses: latest.map(this.present(context)),
      repository: presentGiteaRepository(
        context.repo,
        context.owner,
        context.viewer ?? undefined,
        context.mode,
        this.repositories.publicUrl,
      ),
      commit_url: `${links.api}/commits/${sha}`,
      url: `${links.api}/commits/${sha}/statuses`,
    };
  }
}

import { Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../../api/access/access.decorators';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaLinkHeader } from '../../../api/gitea/gitea-link-header';
import { giteaPaging } from '../../../api/gitea/gitea-page';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { CommitsService } from '../commits/commits.service';
import { presentCommit, presentGitEntry, presentReference } from '../commits/gitea-commit.presenter';
import { repoLinks } from '../contents/gitea-contents.presenter';
import { CommitListQueryDto, CommitQueryDto, TreeQueryDto } from '../dto/commits.dto';
import { RepositoriesService } from '../repositories.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
const joined = (value: string | string[]) => (Array.isArray(value) ? value.join('/') : value);
const positive = (value: string, fallback: number) =>
  /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : fallback;

/** Gitea's history routes: commits, one commit, compare, refs, trees and blobs. Token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo')
export class GiteaCommitsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly commits: CommitsService,
  ) {}

  private links(context: RepositoryContext) {
    return repoLinks(this.repositories.publicUrl, context.owner.name, context.repo.name);
  }

  private present(context: RepositoryContext, stat: boolean, files: boolean) {
    const links = this.links(context);
    const options = { viewer: context.viewer, publicUrl: this.repositories.publicUrl, stat, files };
    return (view: Parameters<typeof presentCommit>[0]) => presentCommit(view, links, options);
  }

  @Get('commits')
  @Public()
  @ApiOperation({
    summary: "A page of a ref's history (X-Total-Count, X-HasMore, X-Page, X-PerPage, X-PageCount)",
  })
  @ApiOkResponse({ description: 'Gitea `[]Commit`' })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, description: 'the repository is empty' })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @Query() query: CommitListQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    const paging = giteaPaging(query);
    const stat = query.stat ?? true;
    const files = query.files ?? true;
    const { items, total } = await this.commits.list(context.repo, {
      sha: query.sha || undefined,
      path: query.path || undefined,
      not: query.not || undefined,
      page: paging.page,
      limit: paging.limit,
      stat,
      files,
    });
    const pageCount = Math.ceil(total / paging.limit);
    res.set({
      'X-Total-Count': String(total),
      'X-Total': String(total),
      'X-Page': String(paging.page),
      'X-PerPage': String(paging.limit),
      'X-PageCount': String(pageCount),
      'X-HasMore': String(paging.page < pageCount),
    });
    const link = giteaLinkHeader(
      this.repositories.publicUrl,
      res.req.originalUrl,
      paging.page,
      paging.limit,
      total,
    );
    if (link) res.set('Link', link);
    res.append(
      'Access-Control-Expose-Headers',
      'X-Total-Count, X-HasMore, X-Page, X-PerPage, X-PageCount, X-Total, Link',
    );
    return items.map(this.present(context, stat, files));
  }

  @Get('git/commits/:sha')
  @Public()
  @ApiOperation({ summary: 'One commit (id or ref)' })
  @ApiOkResponse({ description: 'Gitea `Commit`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @Param('sha') sha: string,
    @Query() query: CommitQueryDto,
  ): Promise<unknown> {
    const stat = query.stat ?? true;
    const files = query.files ?? true;
    return this.present(context, stat, files)(await this.commits.get(context.repo, sha, stat || files));
  }

  @Get('compare/*basehead')
  @Public()
  @ApiOperation({ summary: 'The commits of `head` not in `base` (`base...head`)' })
  @ApiParam({ name: 'basehead', description: '`base...head`' })
  @ApiOkResponse({ description: 'Gitea `Compare`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async compare(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; basehead: string | string[] },
  ): Promise<unknown> {
    const { commits, total } = await this.commits.compare(context.repo, joined(params.basehead));
    return { total_commits: total, commits: commits.map(this.present(context, true, true)) };
  }

  @Get('git/refs')
  @Public()
  @ApiOperation({ summary: 'Every ref' })
  @ApiOkResponse({ description: 'Gitea `[]Reference`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async refs(@Repo() context: RepositoryContext): Promise<unknown> {
    const links = this.links(context);
    return (await this.commits.refs(context.repo, '')).map((ref) => presentReference(ref, links));
  }

  @Get('git/refs/*ref')
  @Public()
  @ApiOperation({ summary: 'The refs under `refs/{ref}` (a prefix: `heads`, `tags/v1`)' })
  @ApiParam({ name: 'ref', description: 'part or all of a ref name' })
  @ApiOkResponse({ description: 'Gitea `[]Reference`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async refsUnder(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; ref: string | string[] },
  ): Promise<unknown> {
    const links = this.links(context);
    return (await this.commits.refs(context.repo, joined(params.ref))).map((ref) =>
      presentReference(ref, links),
    );
  }

  @Get('git/trees/:sha')
  @Public()
  @ApiOperation({ summary: "A tree (or a commit's tree), paged with `page`/`per_page`, `recursive`" })
  @ApiOkResponse({ description: 'Gitea `GitTreeResponse`' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async tree(
    @Repo() context: RepositoryContext,
    @Param('sha') sha: string,
    @Query() query: TreeQueryDto,
  ): Promise<unknown> {
    const page = positive(query.page, 1);
    const perPage = Math.min(positive(query.per_page, 1000), 1000);
    const tree = await this.commits.tree(context.repo, sha, {
      recursive: query.recursive ?? false,
      page,
      perPage,
    });
    const links = this.links(context);
    return {
      sha: tree.sha,
      url: `${links.api}/git/trees/${tree.sha}`,
      tree: tree.entries.map((entry) => presentGitEntry(entry, links)),
      truncated: tree.truncated,
      page,
      total_count: tree.total,
    };
  }

  @Get('git/blobs/:sha')
  @Public()
  @ApiOperation({ summary: 'A blob, base64' })
  @ApiOkResponse({ description: 'Gitea `GitBlobResponse`' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async blob(@Repo() context: RepositoryContext, @Param('sha') sha: string): Promise<unknown> {
    const blob = await this.commits.blob(context.repo, sha);
    return {
      content: blob.content.toString('base64'),
      encoding: 'base64',
      url: `${this.links(context).api}/git/blobs/${blob.sha}`,
      sha: blob.sha,
      size: blob.size,
    };
  }
}

import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { repoLinks } from '../contents/gitea-contents.presenter';
import { CreatePullReviewOptionsDto, DismissPullReviewOptionsDto } from '../dto/reviews.dto';
import { type Pull, PullsService } from '../issues/pulls.service';
import { RepositoriesService } from '../repositories.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';
import { presentReview, presentReviewComment } from '../reviews/gitea-review.presenter';
import type { PullReview } from '../reviews/pull-review.entity';
import { PullReviewsService } from '../reviews/pull-reviews.service';

const ERROR = { description: 'Gitea error `{message, url}`' };
type Params = { owner: string; repo: string; index: string };
type ReviewParams = Params & { id: string };

/** Gitea's pull request review routes (routers/api/v1/repo/pull_review.go). Token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/pulls/:index/reviews')
export class GiteaReviewsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly pulls: PullsService,
    private readonly reviews: PullReviewsService,
  ) {}

  private async pull(context: RepositoryContext, index: string): Promise<Pull> {
    const found = /^\d{1,18}$/.test(index) ? await this.pulls.find(context.repo, index) : null;
    if (!found) throw new NotFoundError('pull request does not exist', { code: 'PULL_NOT_FOUND' });
    return found;
  }

  private context(context: RepositoryContext, index: string) {
    return {
      links: repoLinks(this.repositories.publicUrl, context.owner.name, context.repo.name),
      index,
      viewer: context.viewer,
      publicUrl: this.repositories.publicUrl,
    };
  }

  private async present(context: RepositoryContext, index: string, reviews: PullReview[]) {
    const counts = await this.reviews.commentCounts(reviews);
    const presentContext = this.context(context, index);
    return reviews.map((review) => presentReview(review, counts.get(review.id) ?? 0, presentContext));
  }

  @Get()
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "A pull request's reviews" })
  @ApiOkResponse({ description: 'Gitea `[]PullReview`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @Param() params: Params,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<unknown>> {
    const paging = giteaPaging(query);
    const all = await this.reviews.list(await this.pull(context, params.index));
    const page = all.slice(paging.offset, paging.offset + paging.limit);
    return new GiteaPage<unknown>(await this.present(context, params.index, page), all.length, paging);
  }

  @Post()
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Review a pull request (APPROVED, REQUEST_CHANGES, COMMENT, with line comments)' })
  @ApiOkResponse({ description: 'Gitea `PullReview`' })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('read')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: Params,
    @Body() body: CreatePullReviewOptionsDto,
  ): Promise<unknown> {
    const found = await this.pull(context, params.index);
    const review = await this.reviews.create(context.repo, found, principal.user, context.mode, {
      event: body.event ?? '',
      body: body.body ?? '',
      commitId: body.commit_id,
      comments: (body.comments ?? []).map((comment) => ({
        path: comment.path,
        body: comment.body ?? '',
        newPosition: comment.new_position,
        oldPosition: comment.old_position,
      })),
    });
    return (await this.present(context, params.index, [review]))[0];
  }

  @Get(':id')
  @Public()
  @ApiOperation({ summary: 'One review' })
  @ApiOkResponse({ description: 'Gitea `PullReview`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(@Repo() context: RepositoryContext, @Param() params: ReviewParams): Promise<unknown> {
    const review = await this.reviews.require(await this.pull(context, params.index), params.id);
    return (await this.present(context, params.index, [review]))[0];
  }

  @Get(':id/comments')
  @Public()
  @ApiOperation({ summary: "A review's line comments" })
  @ApiOkResponse({ description: 'Gitea `[]PullReviewComment`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async comments(@Repo() context: RepositoryContext, @Param() params: ReviewParams): Promise<unknown> {
    const review = await this.reviews.require(await this.pull(context, params.index), params.id);
    const presentContext = this.context(context, params.index);
    return (await this.reviews.comments(review)).map((comment) =>
      presentReviewComment(comment, presentContext),
    );
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a review (its reviewer or a repository administrator)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async delete(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: ReviewParams,
  ): Promise<void> {
    const found = await this.pull(context, params.index);
    await this.reviews.delete(
      found,
      await this.reviews.require(found, params.id),
      principal.user,
      context.mode,
    );
  }

  private async setDismissed(context: RepositoryContext, params: ReviewParams, dismissed: boolean) {
    const review = await this.reviews.require(await this.pull(context, params.index), params.id);
    const changed = await this.reviews.dismiss(review, context.mode, dismissed);
    return (await this.present(context, params.index, [changed]))[0];
  }

  @Post(':id/dismissals')
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Dismiss an approval or rejection (repository administrators)' })
  @ApiOkResponse({ description: 'Gitea `PullReview`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('read')
  async dismiss(
    @Repo() context: RepositoryContext,
    @Param() params: ReviewParams,
    @Body() _body: DismissPullReviewOptionsDto,
  ): Promise<unknown> {
    return this.setDismissed(context, params, true);
  }

  @Post(':id/undismissals')
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Undo a dismissal (repository administrators)' })
  @ApiOkResponse({ description: 'Gitea `PullReview`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('read')
  async undismiss(@Repo() context: RepositoryContext, @Param() params: ReviewParams): Promise<unknown> {
    return this.setDismissed(context, params, false);
  }
}

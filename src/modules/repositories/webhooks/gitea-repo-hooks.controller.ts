import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { ContentsService } from '../contents/contents.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';
import { GiteaHookDto, presentGiteaHook, createHookInput, editHookInput } from './gitea-hook.presenter';
import { WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookPayloads } from './webhook-payloads.service';
import type { Webhook } from './webhook.entity';
import { CreateHookOptionDto, EditHookOptionDto, HookListQueryDto } from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

const ERROR = { description: 'Gitea error `{message, url}`' };
type HookParams = { owner: string; repo: string; id: string };

/**
 * Gitea's repository webhooks (routers/api/v1/repo/hook.go): every route needs a signed-in repository
 * administrator (`reqToken`, `reqAdmin`: 401, then 404 for a repository the caller cannot see, then
 * 403) and a key with `repository` scope (read for GET, write otherwise).
 */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/hooks')
export class GiteaRepoHooksController {
  constructor(
    private readonly hooks: WebhooksService,
    private readonly deliveries: WebhookDeliveries,
    private readonly payloads: WebhookPayloads,
    private readonly contents: ContentsService,
  ) {}

  private present(hook: Webhook): GiteaHookDto {
    return presentGiteaHook(hook, this.hooks.secretsOf(hook).authorization);
  }

  private scope(context: RepositoryContext) {
    return { repositoryId: context.repo.id };
  }

  @Get()
  @GiteaPaged()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'List the hooks in a repository' })
  @ApiOkResponse({ type: [GiteaHookDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async list(
    @Repo() context: RepositoryContext,
    @Query() query: HookListQueryDto,
  ): Promise<GiteaPage<GiteaHookDto>> {
    const paging = giteaPaging(query);
    const { items, total } = await this.hooks.page(this.scope(context), paging.offset, paging.limit);
    return new GiteaPage(
      items.map((hook) => this.present(hook)),
      total,
      paging,
    );
  }

  @Post()
  @HttpCode(201)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Create a hook (type `gitea` or `gogs`; other types are 422)' })
  @ApiCreatedResponse({ type: GiteaHookDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('admin')
  async create(@Repo() context: RepositoryContext, @Body() body: CreateHookOptionDto): Promise<GiteaHookDto> {
    return this.present(await this.hooks.create(this.scope(context), createHookInput(body)));
  }

  @Get(':id')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Get a hook' })
  @ApiOkResponse({ type: GiteaHookDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async get(@Repo() context: RepositoryContext, @Param() params: HookParams): Promise<GiteaHookDto> {
    return this.present(await this.hooks.require(this.scope(context), params.id));
  }

  @Patch(':id')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Edit a hook (events, branch filter and authorization header are replaced, as in Gitea)',
  })
  @ApiOkResponse({ type: GiteaHookDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('admin')
  async edit(
    @Repo() context: RepositoryContext,
    @Param() params: HookParams,
    @Body() body: EditHookOptionDto,
  ): Promise<GiteaHookDto> {
    return this.present(await this.hooks.edit(this.scope(context), params.id, editHookInput(body)));
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a hook in a repository' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async delete(@Repo() context: RepositoryContext, @Param() params: HookParams): Promise<void> {
    await this.hooks.delete(this.scope(context), params.id);
  }

  @Post(':id/tests')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Test a push webhook: queues a push event of the commit `ref` names (default branch)',
  })
  @ApiQuery({ name: 'ref', required: false, description: 'branch, tag or commit' })
  @ApiNoContentResponse({ description: 'queued' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async test(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: HookParams,
    @Query('ref') ref?: string,
  ): Promise<void> {
    const hook = await this.hooks.require(this.scope(context), params.id);
    context.repo.owner ??= context.owner;
    const name = typeof ref === 'string' && ref !== '' ? ref : context.repo.defaultBranch;
    const resolved = await this.contents.tryResolve(context.repo, name);
    if (!resolved)
      throw new NotFoundError(`object does not exist [id: ${name}, rel_path: ]`, {
        code: 'COMMIT_NOT_FOUND',
      });
    await this.deliveries.queueTo([hook], {
      type: 'push',
      key: `test:${randomUUID()}`,
      payload: () =>
        this.payloads.testPush(context.repo, {
          ref: `refs/heads/${context.repo.defaultBranch}`,
          sha: resolved.commit,
          actorId: principal.user.id,
        }),
    });
  }
}

import { Get, Header, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { DownloadController } from '../../../api/download/download-controller.decorator';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { Public } from '../../../api/access/access.decorators';
import { PullDiffQueryDto } from '../dto/pull-diffs.dto';
import { PULL_DIFF_TYPES, PullDiffsService, type PullDiffType } from '../issues/pull-diffs.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

type DiffParams = { owner: string; repo: string; index: string; diffType: string };

function diffType(params: DiffParams): PullDiffType {
  if (!(PULL_DIFF_TYPES as readonly string[]).includes(params.diffType))
    throw new NotFoundError("The target couldn't be found.");
  return params.diffType as PullDiffType;
}

const TEXT = {
  description: 'the unified diff (`.diff`) or the mailbox patches (`.patch`)',
  schema: { type: 'string' },
};

/**
 * Gitea's `GET /repos/{owner}/{repo}/pulls/{index}.{diff|patch}` (registered before the pulls
 * controller: its `{index}` would take `1.diff`).
 */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/pulls')
export class GiteaPullDiffsController {
  constructor(private readonly diffs: PullDiffsService) {}

  @Get(':index.:diffType')
  @Public()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiOperation({ summary: "Get a pull request's diff or patch" })
  @ApiParam({ name: 'diffType', enum: PULL_DIFF_TYPES })
  @ApiProduces('text/plain')
  @ApiOkResponse(TEXT)
  @ApiResponse({ status: 404, description: 'Gitea error `{message, url}`' })
  @RepoAccess('read')
  async render(
    @Repo() context: RepositoryContext,
    @Param() params: DiffParams,
    @Query() query: PullDiffQueryDto,
  ): Promise<string> {
    return this.diffs.render(context.repo, params.index, diffType(params), query.binary === 'true');
  }
}

/** The pull's `diff_url` and `patch_url`: the same text at Gitea's web path `/{owner}/{repo}/pulls/{index}.diff`. */
@DocumentPathParams()
@DownloadController()
export class PullDiffPagesController {
  constructor(private readonly diffs: PullDiffsService) {}

  @Get(':owner/:repo/pulls/:index.:diffType')
  @Public({ scopes: ['repository'], scopeCheck: 'resource' })
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiOperation({ summary: "A pull request's diff or patch (the pull's diff_url / patch_url)" })
  @ApiParam({ name: 'diffType', enum: PULL_DIFF_TYPES })
  @ApiProduces('text/plain')
  @ApiOkResponse(TEXT)
  @ApiResponse({ status: 404, description: 'plain text `not found`' })
  @RepoAccess('read')
  async render(
    @Repo() context: RepositoryContext,
    @Param() params: DiffParams,
    @Query() query: PullDiffQueryDto,
  ): Promise<string> {
    return this.diffs.render(context.repo, params.index, diffType(params), query.binary === 'true');
  }
}

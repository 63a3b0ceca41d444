import { Body, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { Authenticated } from '../../../api/access/access.decorators';
import type { BranchProtection } from '../branches/branch-protection.entity';
import { BranchProtectionsService, type ProtectionInput } from '../branches/branch-protections.service';
import { GiteaBranchProtectionDto, presentGiteaBranchProtection } from '../branches/gitea-branch.presenter';
import {
  CreateBranchProtectionOptionDto,
  EditBranchProtectionOptionDto,
  UpdateBranchProtectionPrioritiesDto,
} from '../dto/branches.dto';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type RepoParams = { owner: string; repo: string };
type RuleParams = RepoParams & { name: string };

function protectionInput(body: EditBranchProtectionOptionDto): ProtectionInput {
  return {
    priority: body.priority,
    enablePush: body.enable_push,
    enablePushWhitelist: body.enable_push_whitelist,
    pushWhitelistUsernames: body.push_whitelist_usernames,
    pushWhitelistTeams: body.push_whitelist_teams,
    pushWhitelistDeployKeys: body.push_whitelist_deploy_keys,
    enableForcePush: body.enable_force_push,
    enableForcePushAllowlist: body.enable_force_push_allowlist,
    forcePushAllowlistUsernames: body.force_push_allowlist_usernames,
    forcePushAllowlistTeams: body.force_push_allowlist_teams,
    forcePushAllowlistDeployKeys: body.force_push_allowlist_deploy_keys,
    enableMergeWhitelist: body.enable_merge_whitelist,
    mergeWhitelistUsernames: body.merge_whitelist_usernames,
    mergeWhitelistTeams: body.merge_whitelist_teams,
    enableStatusCheck: body.enable_status_check,
    statusCheckContexts: body.status_check_contexts,
    requiredApprovals: body.required_approvals,
    enableApprovalsWhitelist: body.enable_approvals_whitelist,
    approvalsWhitelistUsernames: body.approvals_whitelist_username,
    approvalsWhitelistTeams: body.approvals_whitelist_teams,
    blockOnRejectedReviews: body.block_on_rejected_reviews,
    blockOnOfficialReviewRequests: body.block_on_official_review_requests,
    blockOnOutdatedBranch: body.block_on_outdated_branch,
    dismissStaleApprovals: body.dismiss_stale_approvals,
    ignoreStaleApprovals: body.ignore_stale_approvals,
    requireSignedCommits: body.require_signed_commits,
    protectedFilePatterns: body.protected_file_patterns,
    unprotectedFilePatterns: body.unprotected_file_patterns,
    blockAdminMergeOverride: body.block_admin_merge_override,
  };
}

/** Gitea's branch protection routes (`/repos/{owner}/{repo}/branch_protections...`): repository administrators, scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/branch_protections')
export class GiteaBranchProtectionsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly protections: BranchProtectionsService,
  ) {}

  private async present(rule: BranchProtection): Promise<GiteaBranchProtectionDto> {
    return presentGiteaBranchProtection(rule, await this.protections.names(rule));
  }

  @Get()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "List a repository's protection rules in effective order" })
  @ApiOkResponse({ type: [GiteaBranchProtectionDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async list(@Repo() context: RepositoryContext): Promise<GiteaBranchProtectionDto[] | undefined> {
    const rules = await this.protections.list(context.repo);
    const out: GiteaBranchProtectionDto[] = [];
    for (const rule of rules) out.push(await this.present(rule));
    return out;
  }

  @Post()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Create a protection rule (a branch name or a glob)' })
  @ApiCreatedResponse({ type: GiteaBranchProtectionDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('admin')
  async create(
    @Repo() context: RepositoryContext,
    @Body() body: CreateBranchProtectionOptionDto,
  ): Promise<GiteaBranchProtectionDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const rule = await this.protections.create(context.repo, {
      ...protectionInput(body),
      ruleName: body.rule_name || body.branch_name || '',
    });
    return this.present(rule);
  }

  @Post('priority')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Set rule priorities 1, 2, 3… in the given order (ids of other repositories are ignored)',
  })
  @ApiNoContentResponse({ description: 'updated' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('admin')
  async priorities(
    @Repo() context: RepositoryContext,
    @Body() body: UpdateBranchProtectionPrioritiesDto,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.protections.setPriorities(context.repo, body.ids ?? []);
  }

  @Get(':name')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Get a protection rule by its name' })
  @ApiOkResponse({ type: GiteaBranchProtectionDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async get(
    @Repo() context: RepositoryContext,
    @Param() params: RuleParams,
  ): Promise<GiteaBranchProtectionDto | undefined> {
    return this.present(await this.protections.requireByName(context.repo, params.name));
  }

  @Patch(':name')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Edit a protection rule (absent fields keep their values)' })
  @ApiOkResponse({ type: GiteaBranchProtectionDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('admin')
  async edit(
    @Repo() context: RepositoryContext,
    @Param() params: RuleParams,
    @Body() body: EditBranchProtectionOptionDto,
  ): Promise<GiteaBranchProtectionDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const rule = await this.protections.requireByName(context.repo, params.name);
    return this.present(await this.protections.edit(context.repo, rule, protectionInput(body)));
  }

  @Delete(':name')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a protection rule' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('admin')
  async delete(@Repo() context: RepositoryContext, @Param() params: RuleParams): Promise<void> {
    await this.protections.delete(await this.protections.requireByName(context.repo, params.name));
  }
}

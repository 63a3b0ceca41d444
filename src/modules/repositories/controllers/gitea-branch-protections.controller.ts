import { Body, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
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
import { type RepositoryContext, repositoryContext } from './repository-context';

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

  private async admin(
    principal: Principal,
    params: RepoParams,
    res: Response,
    write: boolean,
  ): Promise<RepositoryContext | null> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'admin',
      res,
    );
    if (context && write) this.permissions.assertNotArchived(context.repo, context.owner.name);
    return context;
  }

  @Get()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "List a repository's protection rules in effective order" })
  @ApiOkResponse({ type: [GiteaBranchProtectionDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param() params: RepoParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaBranchProtectionDto[] | undefined> {
    const context = await this.admin(principal, params, res, false);
    if (!context) return undefined;
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
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param() params: RepoParams,
    @Body() body: CreateBranchProtectionOptionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaBranchProtectionDto | undefined> {
    const context = await this.admin(principal, params, res, true);
    if (!context) return undefined;
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
  async priorities(
    @CurrentPrincipal() principal: Principal,
    @Param() params: RepoParams,
    @Body() body: UpdateBranchProtectionPrioritiesDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await this.admin(principal, params, res, true);
    if (!context) return;
    await this.protections.setPriorities(context.repo, body.ids ?? []);
  }

  @Get(':name')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Get a protection rule by its name' })
  @ApiOkResponse({ type: GiteaBranchProtectionDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param() params: RuleParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaBranchProtectionDto | undefined> {
    const context = await this.admin(principal, params, res, false);
    if (!context) return undefined;
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
  async edit(
    @CurrentPrincipal() principal: Principal,
    @Param() params: RuleParams,
    @Body() body: EditBranchProtectionOptionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaBranchProtectionDto | undefined> {
    const context = await this.admin(principal, params, res, true);
    if (!context) return undefined;
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
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param() params: RuleParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await this.admin(principal, params, res, false);
    if (!context) return;
    await this.protections.delete(await this.protections.requireByName(context.repo, params.name));
  }
}

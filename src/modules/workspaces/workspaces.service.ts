import { IdentityDirectory } from '../identity/identity-directory.service';
import { WorkspaceAccounts } from './workspace-accounts.service';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import type { WorkspaceSummary } from '../../platform/ports/workspace-lookup';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  type DomainErrorCode,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../platform/errors/domain-error';
import { type AuthzObject, AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import { OrganizationsService } from '../identity/organizations.service';
import type { User } from '../identity/entities/user.entity';
import { workspaceStatus } from './coder-workspace.presenter';
import { PREBUILDS_USER_ID } from './events';
import { ProvisionerJobsService } from './provisioner-jobs.service';
import { parseTemplateDefinition } from './template-definition';
import type { Template } from './entities/template.entity';
import type { TemplateVersion } from './entities/template-version.entity';
import type { TemplateVersionPreset } from './entities/template-version-preset.entity';
import type { WorkspaceTransition } from './entities/workspace-build.entity';
import type { BuildRow, JobRow, ResourceRow, UserSummary, WorkspaceRow } from './workspace-views';
import { TemplatesRepository } from './repositories/templates.repository';
import { WorkspaceViewsRepository, type WorkspaceSearch } from './repositories/workspace-views.repository';
import { WorkspacesRepository } from './repositories/workspaces.repository';
import {
  applyAclChanges,
  type BuildTimeStats,
  buildTimeStatsFrom,
  checkName,
  isBuildActive,
  pageOf,
} from './workspace-rules';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';
import { isUuid } from '../../platform/text/uuid';

export const NOT_FOUND = 'Resource not found or you do not have access to this resource';
export const RECONCILE_JOB = 'workspaces.prebuilds-reconcile';

export function notFound(code: DomainErrorCode = 'NOT_FOUND'): NotFoundError {
  return new NotFoundError(NOT_FOUND, { code });
}

/** The RBAC object of a workspace (Coder `Workspace.RBACObject()`), prebuilt ones as `prebuilt_workspace` too. */
export function workspaceObject(
  workspace: Pick<WorkspaceRow, 'id' | 'owner_id' | 'organization_id' | 'user_acl' | 'group_acl'>,
): AuthzObject {
  return {
    type: 'workspace',
    id: workspace.id,
    ownerId: workspace.owner_id,
    orgId: workspace.organization_id,
    aclUserList: workspace.user_acl,
    aclGroupList: workspace.group_acl,
  };
}

export interface CreateVersionInput {
  organizationId: string;
  name?: string;
  message?: string;
  templateId?: string;
  definition: unknown;
}

export interface CreateWorkspaceInput {
  name: string;
  templateId?: string;
  templateVersionId?: string;
  presetId?: string;
  /** createTask: the prompt and display name stored with the workspace; the version must have an AI task. */
  task?: { prompt: string; displayName: string };
}

/**
 * Templates, versions, workspaces and their builds (Coder's model). Reads are filtered by RBAC and
 * what a caller may not read is 404; every write that queues provisioner work does it in the same
 * transaction.
 */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly templatesRepo: TemplatesRepository,
    private readonly workspacesRepo: WorkspacesRepository,
    private readonly views: WorkspaceViewsRepository,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly organizations: OrganizationsService,
    private readonly jobs: ProvisionerJobsService,
    private readonly queue: JobQueue,
    @Inject(WORKSPACES_CONFIG) readonly config: WorkspacesConfig,
    private readonly accounts: WorkspaceAccounts,
    private readonly directory: IdentityDirectory,
  ) {}

  // ---------------------------------------------------------------- templates and versions

  private async memberOf(principal: Principal, organizationId: string): Promise<boolean> {
    const memberships = await this.organizations.membershipsOf(principal.user.id);
    return memberships.some((membership) => membership.organizationUuid === organizationId);
  }

  /** Templates are read by the organization's members and by whoever RBAC allows. */
  private async canReadTemplate(principal: Principal, organizationId: string, id?: string): Promise<boolean> {
    return (
      (await this.memberOf(principal, organizationId)) ||
      (await this.authz.authorize(principal, 'read', { type: 'template', id, orgId: organizationId }))
    );
  }

  async createVersion(principal: Principal, input: CreateVersionInput): Promise<TemplateVersion> {
    await this.authz.require(principal, 'create', { type: 'template', orgId: input.organizationId });
    const definition = parseTemplateDefinition(input.definition);
    if (input.templateId) await this.requireTemplate(principal, input.templateId, input.organizationId);
    const name = input.name || `v-${Date.now().toString(36)}`;
    if (name.length > 64)
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'name', detail: 'at most 64 characters' }],
      });
    return this.transactions.run(async (tx) => {
      if (input.templateId) {
        if (await this.templatesRepo.versionNameTaken(tx.manager, input.templateId, name))
          throw new ConflictError(
            `A template version with name "${name}" already exists for this template.`,
            {
              fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
            },
          );
      }
      const id = await this.templatesRepo.newId(tx.manager);
      const job = await this.jobs.enqueue(tx.manager, {
        organizationId: input.organizationId,
        type: 'template_version_import',
        input: { template_version_id: id },
        initiatorId: principal.user.uuid,
        afterCommit: (callback) => tx.afterCommit(callback),
      });
      const version = await this.templatesRepo.insertVersion(tx.manager, {
        id,
        templateId: input.templateId ?? null,
        organizationId: input.organizationId,
        name,
        message: input.message ?? '',
        definition,
        jobId: job.id,
        createdBy: principal.user.uuid,
      });
      for (const preset of definition.presets ?? [])
        await this.templatesRepo.insertPreset(tx.manager, id, {
          name: preset.name,
          parameters: preset.parameters ?? {},
          desiredInstances: preset.prebuilds?.instances ?? null,
          isDefault: preset.default === true,
        });
      return version;
    });
  }

  async requireVersion(principal: Principal, id: string): Promise<TemplateVersion> {
    const version = await this.templatesRepo.findVersion(id);
    if (!version) throw notFound('TEMPLATE_VERSION_NOT_FOUND');
    if (!(await this.canReadTemplate(principal, version.organizationId, version.templateId ?? undefined)))
      throw notFound();
    return version;
  }

  async versionJob(version: TemplateVersion): Promise<JobRow> {
    return this.views.job(version.jobId);
  }

  /** What a version's job shows of its template (none for a version outside a template). */
  async versionTemplateHeader(
    version: TemplateVersion,
  ): Promise<{ name: string; display_name: string; icon: string } | undefined> {
    return version.templateId ? this.templatesRepo.header(version.templateId) : undefined;
  }

  async presets(version: TemplateVersion): Promise<TemplateVersionPreset[]> {
    return this.templatesRepo.presetsOf(version.id);
  }

  async createTemplate(
    principal: Principal,
    organizationId: string,
    input: { name: string; displayName?: string; description?: string; icon?: string; versionId: string },
  ): Promise<Template> {
    await this.authz.require(principal, 'create', { type: 'template', orgId: organizationId });
    checkName(input.name);
    const version = await this.requireVersion(principal, input.versionId);
    if (version.organizationId !== organizationId)
      throw new BadRequestError('Template version must belong to the organization.', {
        fields: [{ field: 'template_version_id', detail: 'belongs to another organization' }],
      });
    if (version.templateId)
      throw new ConflictError(`Template version ${version.id} is already part of a template.`, {
        fields: [{ field: 'template_version_id', detail: 'Template version is already part of a template' }],
      });
    const job = await this.versionJob(version);
    if (job.status !== 'succeeded')
      throw new BadRequestError(
        job.status === 'failed'
          ? 'Template version import failed.'
          : 'Template version import job has not completed.',
        { detail: job.error ?? undefined },
      );
    return this.transactions.run(async (tx) => {
      if (await this.templatesRepo.nameTaken(tx.manager, organizationId, input.name.toLowerCase()))
        throw new ConflictError(`Template with name "${input.name}" already exists.`, {
          fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        });
      const template = await this.templatesRepo.insertTemplate(tx.manager, {
        organizationId,
        name: input.name,
        displayName: input.displayName ?? '',
        description: input.description ?? '',
        icon: input.icon ?? '',
        activeVersionId: version.id,
        createdBy: principal.user.uuid,
      });
      await this.templatesRepo.attachVersion(tx.manager, version.id, template.id);
      await this.queue.enqueue(tx.manager, RECONCILE_JOB, {}, { dedupeKey: 'reconcile' });
      return template;
    });
  }

  /** `PATCH /templates/{id}/versions`: promotes a version (prebuilds follow the active version). */
  async setActiveVersion(principal: Principal, templateId: string, versionId: string): Promise<void> {
    const template = await this.requireTemplate(principal, templateId);
    await this.authz.require(principal, 'update', {
      type: 'template',
      id: template.id,
      orgId: template.organizationId,
    });
    const version = await this.requireVersion(principal, versionId);
    if (version.templateId !== template.id)
      throw new BadRequestError('The provided template version does not belong to this template.');
    const job = await this.versionJob(version);
    if (job.status !== 'succeeded')
      throw new BadRequestError('Template version import job has not completed.');
    await this.transactions.run(async (tx) => {
      await this.templatesRepo.setActiveVersion(tx.manager, template.id, version.id);
      await this.queue.enqueue(tx.manager, RECONCILE_JOB, {}, { dedupeKey: 'reconcile' });
    });
  }

  async requireTemplate(principal: Principal, id: string, organizationId?: string): Promise<Template> {
    const template = await this.templatesRepo.findLive(id);
    if (!template) throw notFound('TEMPLATE_NOT_FOUND');
    if (organizationId && template.organizationId !== organizationId) throw notFound('TEMPLATE_NOT_FOUND');
    if (!(await this.canReadTemplate(principal, template.organizationId, template.id)))
      throw notFound('TEMPLATE_NOT_FOUND');
    return template;
  }

  async listTemplates(principal: Principal, organizationId: string): Promise<Template[]> {
    if (!(await this.canReadTemplate(principal, organizationId))) return [];
    return this.templatesRepo.listByOrganization(organizationId);
  }

  /**
   * Coder's TemplateBuildTimeStats: the 50th and 95th percentile of the duration of each
   * transition's successful builds (milliseconds), null for a transition without one.
   */
  async buildTimeStats(ids: string[]): Promise<Map<string, BuildTimeStats>> {
    return buildTimeStatsFrom(ids, await this.templatesRepo.buildTimes(ids));
  }

  async templateWorkspaceCounts(ids: string[]): Promise<Map<string, number>> {
    return this.templatesRepo.workspaceCounts(ids);
  }

  // ---------------------------------------------------------------- workspaces

  async requireWorkspace(principal: Principal, id: string, action = 'read'): Promise<WorkspaceRow> {
    const workspace = await this.views.liveWorkspace(id);
    if (!workspace) throw notFound('WORKSPACE_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    if (action !== 'read') await this.authz.require(principal, action, workspaceObject(workspace));
    return workspace;
  }

  async workspaceByOwnerAndName(principal: Principal, owner: User, name: string): Promise<WorkspaceRow> {
    const workspace = await this.views.workspaceByOwnerAndName(owner.uuid, name.toLowerCase());
    if (!workspace) throw notFound('WORKSPACE_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    return workspace;
  }

  /**
   * A provisioner stops a workspace it found beyond a limit (issue 53: the workspace directory's size): a
   * `stop` build with reason `autostop`, initiated for its owner. `organizationId` null: an embedded daemon
   * (every organization). Null when the workspace is gone, not the daemon's, or a build is already active.
   */
  async stopForProvisioner(workspaceId: string, organizationId: string | null): Promise<string | null> {
    const workspace = await this.views.liveWorkspace(workspaceId);
    if (!workspace || (organizationId !== null && workspace.organization_id !== organizationId)) return null;
    try {
      return await this.transactions.run(async (tx) =>
        this.buildInTransaction(tx, workspace.owner_id, workspace, {
          transition: 'stop',
          reason: 'autostop',
        }),
      );
    } catch (error) {
      if (error instanceof ConflictError) return null;
      throw error;
    }
  }

  /** Visible workspaces matching the filters, newest first; `count` is the filtered total. */
  async listWorkspaces(
    principal: Principal,
    filters: WorkspaceSearch & { status?: string; organizationId?: string },
    page: { limit: number; offset: number },
  ): Promise<{ workspaces: WorkspaceRow[]; count: number }> {
    const rows = (await this.views.search(filters)).filter(
      (row) => !filters.organizationId || row.organization_id === filters.organizationId,
    );
    let visible = await this.authz.filter(principal, 'read', rows, workspaceObject);
    if (filters.status) {
      const latest = await this.views.latestBuilds(visible.map((row) => row.id));
      visible = visible.filter((row) => {
        const build = latest.get(row.id);
        return build && workspaceStatus(build.job.status, build.transition) === filters.status;
      });
    }
    return { workspaces: pageOf(visible, page), count: visible.length };
  }

  async latestBuilds(ids: string[]): Promise<Map<string, BuildRow>> {
    return this.views.latestBuilds(ids);
  }

  /**
   * `POST /users/{user}/workspaces`: from a template (its active version), a version, or a preset.
   * A preset with a ready prebuilt workspace hands that one over instead (a claim).
   */
  async createWorkspace(
    principal: Principal,
    owner: User,
    organizationId: string | undefined,
    input: CreateWorkspaceInput,
  ): Promise<{ id: string; claimed: boolean }> {
    checkName(input.name);
    let version: TemplateVersion;
    let template: Template;
    if (input.templateVersionId) {
      version = await this.requireVersion(principal, input.templateVersionId);
      if (!version.templateId) throw new BadRequestError('Template version is not part of a template.');
      template = await this.requireTemplate(principal, version.templateId);
      if (input.templateId && input.templateId !== template.id)
        throw new BadRequestError('Template version does not belong to the template.');
    } else if (input.templateId) {
      template = await this.requireTemplate(principal, input.templateId);
      version = await this.requireVersion(principal, template.activeVersionId);
    } else {
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'template_id', detail: 'Either template_id or template_version_id must be set.' }],
      });
    }
    if (organizationId && template.organizationId !== organizationId) throw notFound('TEMPLATE_NOT_FOUND');
    if (input.task && version.definition.has_ai_task !== true)
      throw new BadRequestError('Template does not have a valid "coder_ai_task" resource.');
    if (input.task && version.definition.has_ai_task !== true)
      throw new BadRequestError('Template does not have a valid "coder_ai_task" resource.');
    let preset: TemplateVersionPreset | undefined;
    if (input.presetId) {
      preset = (await this.presets(version)).find((candidate) => candidate.id === input.presetId);
      if (!preset)
        throw new BadRequestError('Template version preset does not belong to the template version.', {
          fields: [{ field: 'template_version_preset_id', detail: 'unknown preset' }],
        });
    }
    await this.authz.require(principal, 'create', {
      type: 'workspace',
      ownerId: owner.uuid,
      orgId: template.organizationId,
    });
    return this.transactions.run(async (tx) => {
      if (await this.workspacesRepo.nameTaken(tx.manager, owner.uuid, input.name.toLowerCase()))
        throw new ConflictError(`Workspace "${input.name}" already exists.`, {
          fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        });
      const task = input.task;
      const remember = async (workspaceId: string): Promise<void> => {
        if (task)
          await this.workspacesRepo.rememberTask(tx.manager, workspaceId, task.prompt, task.displayName);
      };
      if (preset && owner.uuid !== PREBUILDS_USER_ID) {
        const claimed = await this.claimPrebuild(tx, principal, owner, input.name, version, preset);
        if (claimed) {
          await remember(claimed);
          return { id: claimed, claimed: true };
        }
      }
      const id = await this.insertWorkspace(tx.manager, owner.uuid, template, input.name);
      await remember(id);
      await this.insertBuild(tx, {
        workspaceId: id,
        organizationId: template.organizationId,
        version,
        presetId: preset?.id ?? null,
        transition: 'start',
        reason: 'initiator',
        initiatorId: principal.user.uuid,
      });
      return { id, claimed: false };
    });
  }

  async insertWorkspace(
    manager: EntityManager,
    ownerId: string,
    template: Template,
    name: string,
  ): Promise<string> {
    return this.workspacesRepo.insert(manager, {
      ownerId,
      organizationId: template.organizationId,
      templateId: template.id,
      name,
    });
  }

  /** A ready prebuilt workspace of the preset becomes the user's, with a claim build, in the caller's transaction. */
  private async claimPrebuild(
    tx: Transaction,
    principal: Principal,
    owner: User,
    name: string,
    version: TemplateVersion,
    preset: TemplateVersionPreset,
  ): Promise<string | null> {
    const candidate = await this.workspacesRepo.lockClaimable(tx.manager, preset.id);
    if (!candidate) return null;
    await this.workspacesRepo.transfer(tx.manager, candidate, owner.uuid, name);
    const buildId = await this.insertBuild(tx, {
      workspaceId: candidate,
      organizationId: version.organizationId,
      version,
      presetId: preset.id,
      transition: 'start',
      reason: 'initiator',
      initiatorId: principal.user.uuid,
      isClaim: true,
    });
    // The running agent belongs to the claim build from now on: its token stays valid (it follows the
    // reinit stream and heartbeats) while the claim build waits for a provisioner.
    await this.workspacesRepo.moveAgentToBuild(tx.manager, candidate, buildId);
    await this.queue.enqueue(tx.manager, RECONCILE_JOB, {}, { dedupeKey: 'reconcile' });
    return candidate;
  }

  /** A build and its provisioner job, in the caller's transaction. */
  async insertBuild(
    tx: Transaction,
    input: {
      workspaceId: string;
      organizationId: string;
      version: TemplateVersion;
      presetId: string | null;
      transition: WorkspaceTransition;
      reason: string;
      initiatorId: string;
      isClaim?: boolean;
    },
  ): Promise<string> {
    const buildNumber = await this.workspacesRepo.nextBuildNumber(tx.manager, input.workspaceId);
    const id = await this.workspacesRepo.newId(tx.manager);
    const job = await this.jobs.enqueue(tx.manager, {
      organizationId: input.organizationId,
      type: 'workspace_build',
      input: { workspace_build_id: id },
      initiatorId: input.initiatorId,
      afterCommit: (callback) => tx.afterCommit(callback),
    });
    await this.workspacesRepo.insertBuild(tx.manager, {
      id,
      workspaceId: input.workspaceId,
      templateVersionId: input.version.id,
      presetId: input.presetId,
      buildNumber,
      transition: input.transition,
      reason: input.reason,
      initiatorId: input.initiatorId,
      jobId: job.id,
      hasAiTask: input.version.definition.has_ai_task === true,
      isClaim: input.isClaim === true,
    });
    tx.afterCommit(() => this.jobs.announce(job.id));
    return id;
  }

  /**
   * `POST /workspaces/{id}/builds`: start, stop or delete. One build at a time (409 while one is
   * pending or running), and only transitions that make sense from the current state.
   */
  async createBuild(
    principal: Principal,
    workspaceId: string,
    input: { transition: WorkspaceTransition; templateVersionId?: string; reason?: string },
  ): Promise<string> {
    const workspace = await this.requireWorkspace(principal, workspaceId);
    await this.authz.require(
      principal,
      input.transition === 'delete' ? 'delete' : input.transition,
      workspaceObject(workspace),
    );
    return this.transactions.run(async (tx) =>
      this.buildInTransaction(tx, principal.user.uuid, workspace, input),
    );
  }

  async buildInTransaction(
    tx: Transaction,
    initiatorId: string,
    workspace: WorkspaceRow,
    input: { transition: WorkspaceTransition; templateVersionId?: string; reason?: string },
  ): Promise<string> {
    const latest = await this.workspacesRepo.lockLatestBuild(tx.manager, workspace.id);
    if (isBuildActive(latest))
      throw new ConflictError('A workspace build is already active.', { code: 'BUILD_ACTIVE' });
    const versionId =
      input.templateVersionId ?? latest?.template_version_id ?? workspace.template_active_version_id;
    const version = await this.templatesRepo.findVersion(versionId, tx.manager);
    if (!version || version.templateId !== workspace.template_id)
      throw new BadRequestError('Template version not found or not part of the workspace template.', {
        fields: [{ field: 'template_version_id', detail: 'unknown template version' }],
      });
    return this.insertBuild(tx, {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      version,
      presetId: latest?.template_version_preset_id ?? null,
      transition: input.transition,
      reason: input.reason ?? 'initiator',
      initiatorId,
    });
  }

  async builds(workspace: WorkspaceRow, page: { limit: number; offset: number }): Promise<BuildRow[]> {
    return this.views.buildsOf(workspace.id, page);
  }

  /** Renames a workspace (Coder's `PATCH /workspaces/{id}`); the name is unique per owner. */
  async renameWorkspace(principal: Principal, id: string, name: string): Promise<void> {
    const workspace = await this.requireWorkspace(principal, id, 'update');
    checkName(name);
    if (name === workspace.name) return;
    await this.transactions.run(async (tx) => {
      if (
        await this.workspacesRepo.nameTaken(tx.manager, workspace.owner_id, name.toLowerCase(), workspace.id)
      )
        throw new ConflictError(`Workspace "${name}" already exists.`, {
          fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        });
      await this.workspacesRepo.rename(tx.manager, workspace.id, name);
    });
  }

  /** A template's versions, oldest first (Coder's `GET /templates/{id}/versions`). */
  async templateVersions(template: Template): Promise<TemplateVersion[]> {
    return this.templatesRepo.versionsOf(template.id);
  }

  /** The resources (with agents) a provisioner job produced. */
  async jobResources(jobId: string): Promise<ResourceRow[]> {
    return this.views.jobResources(jobId);
  }

  /** A workspace's build by its number (Coder's `waitForBuild` polls this). */
  async buildByNumber(workspace: WorkspaceRow, buildNumber: number): Promise<BuildRow> {
    const build = await this.views.buildByNumber(workspace.id, buildNumber);
    if (!build) throw notFound('BUILD_NOT_FOUND');
    return build;
  }

  async requireBuild(principal: Principal, buildId: string): Promise<BuildRow> {
    const build = await this.views.build(buildId);
    if (!build) throw notFound('BUILD_NOT_FOUND');
    // Builds of a deleted workspace stay readable (Coder shows the delete build).
    const workspace = await this.views.anyWorkspace(build.workspace_id);
    if (!workspace) throw notFound('BUILD_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    return build;
  }

  /** A provisioner job's status (undefined when the job is gone). */
  async jobStatus(jobId: string): Promise<string | undefined> {
    return this.views.jobStatus(jobId);
  }

  /** A provisioner job's log lines after the given id. */
  async buildLogs(jobId: string, after: number) {
    return this.views.jobLogs(jobId, after);
  }

  /** Names and avatars of users by uuid (the prebuilds user included), for the presenters. */
  async userSummaries(ids: string[]): Promise<Map<string, UserSummary>> {
    return this.accounts.summaries(ids);
  }

  /** Names of groups (teams) by uuid, for a workspace's ACL. */
  async groupNames(ids: string[]): Promise<{ uuid: string; name: string }[]> {
    return this.accounts.groupNames(ids);
  }

  // ---------------------------------------------------------------- sharing

  async updateAcl(
    principal: Principal,
    workspaceId: string,
    input: { userRoles: Record<string, string>; groupRoles: Record<string, string> },
  ): Promise<void> {
    const workspace = await this.requireWorkspace(principal, workspaceId);
    const mode =
      (await this.directory.workspaceSharingModeOf(workspace.organization_id).catch(() => undefined)) ??
      'everyone';
    if (mode === 'none')
      throw new ForbiddenError('Workspace sharing is disabled for this organization.', 'permission');
    await this.authz.require(principal, 'share', workspaceObject(workspace));
    const { userAcl, groupAcl } = applyAclChanges(
      { ownerId: workspace.owner_id, userAcl: workspace.user_acl, groupAcl: workspace.group_acl },
      input,
    );
    if (Object.keys(input.userRoles).length) {
      const ids = Object.keys(input.userRoles);
      if ((await this.directory.namesByUuids(ids)).size !== new Set(ids).size)
        throw new InvalidError('Invalid request to update workspace ACL', {
          fields: [{ field: 'user_roles', detail: 'unknown user id' }],
        });
    }
    await this.workspacesRepo.saveAcl(workspace.id, userAcl, groupAcl);
  }

  /** Drops shares when an organization's sharing mode no longer allows them. */
  async clearShares(organizationAccountId: string, keepServiceAccounts: boolean): Promise<void> {
    const organization = (await this.directory.namesByIds([organizationAccountId])).get(
      organizationAccountId,
    );
    if (!organization) return;
    let keepOwners: string[] = [];
    if (keepServiceAccounts) {
      const owners = await this.directory.usersByUuids(
        await this.workspacesRepo.ownersOfSharedWorkspaces(organization.uuid),
      );
      keepOwners = [...owners.values()].filter((owner) => owner.isServiceAccount).map((owner) => owner.uuid);
    }
    await this.workspacesRepo.clearShares(organization.uuid, keepOwners);
  }

  /** Workspaces a user (numeric id) owns, for the account deletion rule. */
  async countOwnedBy(userId: string, manager: EntityManager): Promise<number> {
    const owner = (await this.directory.namesByIds([userId], manager)).get(userId);
    return owner ? this.workspacesRepo.countOwnedBy(manager, owner.uuid) : 0;
  }

  /** A purged account's workspaces get delete builds (their agents stop, their directories go). */
  async purgeOwnedBy(userId: string, tx: Transaction): Promise<void> {
    const owner = (await this.directory.namesByIds([userId], tx.manager)).get(userId);
    const rows = owner ? await this.views.ownedBy(owner.uuid, tx.manager) : [];
    for (const workspace of rows)
      await this.buildInTransaction(tx, workspace.owner_id, workspace, { transition: 'delete' }).catch(
        async (error: unknown) => {
          if (!(error instanceof ConflictError)) throw error;
          // A build is under way: the workspace is marked deleted; its job finishes on its own.
          await this.workspacesRepo.markDeleted(tx.manager, workspace.id);
        },
      );
  }

  /** The WorkspaceLookup port: what other modules may learn about a workspace. */
  async summaryOf(id: string): Promise<WorkspaceSummary | null> {
    if (!isUuid(id)) return null;
    const workspace = await this.views.liveWorkspace(id);
    return workspace
      ? {
          id: workspace.id,
          ownerId: workspace.owner_id,
          organizationId: workspace.organization_id,
          userAcl: workspace.user_acl,
          groupAcl: workspace.group_acl,
        }
      : null;
  }

  /** The RBAC object of a workspace by id (authcheck's `resource_id`). */
  async rbacObjectOf(id: string): Promise<AuthzObject | null> {
    if (!isUuid(id)) return null;
    const workspace = await this.views.liveWorkspace(id);
    return workspace ? workspaceObject(workspace) : null;
  }
}

/** The row mappers live with the repository; prebuilds.service.ts imports them from here. */
export { presetFromRow, templateFromRow, versionFromRow } from './repositories/templates.repository';

import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import type { WorkspaceSummary } from '../../platform/ports/workspace-lookup';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../platform/errors/domain-error';
import { type AuthzObject, AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../auth/principal';
import { OrganizationsService } from '../identity/organizations.service';
import type { User } from '../identity/entities/user.entity';
import { workspaceStatus } from './coder-workspace.presenter';
import { PREBUILDS_USER_ID } from './events';
import { ProvisionerJobsService } from './provisioner-jobs.service';
import { parseTemplateDefinition, type TemplateDefinition } from './template-definition';
import type { Template } from './entities/template.entity';
import type { TemplateVersion } from './entities/template-version.entity';
import type { TemplateVersionPreset } from './entities/template-version-preset.entity';
import type { WorkspaceTransition } from './entities/workspace-build.entity';
import {
  type AgentRow,
  type BuildRow,
  loadBuilds,
  loadLatestBuilds,
  loadWorkspaces,
  type ResourceRow,
  type WorkspaceRow,
} from './workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';
import { isUuid } from '../../platform/text/uuid';

export const NOT_FOUND = 'Resource not found or you do not have access to this resource';
const NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
export const RECONCILE_JOB = 'workspaces.prebuilds-reconcile';

export function notFound(code = 'NOT_FOUND'): NotFoundError {
  return new NotFoundError(NOT_FOUND, { code });
}

function checkName(name: string, field = 'name'): void {
  if (name.length > 32 || !NAME.test(name) || name.includes('--'))
    throw new InvalidError('Validation failed.', {
      code: 'INVALID_NAME',
      fields: [{ field, detail: 'Validation failed for tag "workspace_name" with value: "' + name + '"' }],
    });
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
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly organizations: OrganizationsService,
    private readonly jobs: ProvisionerJobsService,
    private readonly queue: JobQueue,
    @Inject(WORKSPACES_CONFIG) readonly config: WorkspacesConfig,
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
        const [taken] = (await tx.manager.query(
          'SELECT 1 FROM template_versions WHERE template_id = $1 AND name = $2',
          [input.templateId, name],
        )) as unknown[];
        if (taken)
          throw new ConflictError(
            `A template version with name "${name}" already exists for this template.`,
            {
              fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
            },
          );
      }
      const versionId = (await tx.manager.query('SELECT gen_random_uuid() AS id')) as { id: string }[];
      const id = versionId[0]!.id;
      const job = await this.jobs.enqueue(tx.manager, {
        organizationId: input.organizationId,
        type: 'template_version_import',
        input: { template_version_id: id },
        initiatorId: principal.user.uuid,
        afterCommit: (callback) => tx.afterCommit(callback),
      });
      const [row] = (await tx.manager.query(
        `INSERT INTO template_versions (id, template_id, organization_id, name, message, definition, job_id, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [
          id,
          input.templateId ?? null,
          input.organizationId,
          name,
          input.message ?? '',
          JSON.stringify(definition),
          job.id,
          principal.user.uuid,
        ],
      )) as Record<string, unknown>[];
      for (const preset of definition.presets ?? [])
        await tx.manager.query(
          `INSERT INTO template_version_presets (template_version_id, name, parameters, desired_instances, is_default)
           VALUES ($1, $2, $3, $4, $5)`,
          [
            id,
            preset.name,
            JSON.stringify(preset.parameters ?? {}),
            preset.prebuilds?.instances ?? null,
            preset.default === true,
          ],
        );
      return versionFromRow(row!);
    });
  }

  async requireVersion(principal: Principal, id: string): Promise<TemplateVersion> {
    const [row] = (await this.dataSource.query('SELECT * FROM template_versions WHERE id = $1', [
      id,
    ])) as Record<string, unknown>[];
    if (!row) throw notFound('TEMPLATE_VERSION_NOT_FOUND');
    const version = versionFromRow(row);
    if (!(await this.canReadTemplate(principal, version.organizationId, version.templateId ?? undefined)))
      throw notFound();
    return version;
  }

  async versionJob(version: TemplateVersion) {
    const [job] = await this.dataSource.query('SELECT * FROM provisioner_jobs WHERE id = $1', [
      version.jobId,
    ]);
    return job as import('./workspace-views').JobRow;
  }

  async presets(version: TemplateVersion): Promise<TemplateVersionPreset[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM template_version_presets WHERE template_version_id = $1 ORDER BY name',
      [version.id],
    )) as Record<string, unknown>[];
    return rows.map(presetFromRow);
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
      const [taken] = (await tx.manager.query(
        'SELECT 1 FROM templates WHERE organization_id = $1 AND lower_name = $2 AND deleted = false',
        [organizationId, input.name.toLowerCase()],
      )) as unknown[];
      if (taken)
        throw new ConflictError(`Template with name "${input.name}" already exists.`, {
          fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        });
      const [row] = (await tx.manager.query(
        `INSERT INTO templates (organization_id, name, lower_name, display_name, description, icon, active_version_id, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [
          organizationId,
          input.name,
          input.name.toLowerCase(),
          input.displayName ?? '',
          input.description ?? '',
          input.icon ?? '',
          version.id,
          principal.user.uuid,
        ],
      )) as Record<string, unknown>[];
      const template = templateFromRow(row!);
      await tx.manager.query('UPDATE template_versions SET template_id = $1 WHERE id = $2', [
        template.id,
        version.id,
      ]);
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
      await tx.manager.query(
        'UPDATE templates SET active_version_id = $2, updated_at = now() WHERE id = $1',
        [template.id, version.id],
      );
      await this.queue.enqueue(tx.manager, RECONCILE_JOB, {}, { dedupeKey: 'reconcile' });
    });
  }

  async requireTemplate(principal: Principal, id: string, organizationId?: string): Promise<Template> {
    const [row] = (await this.dataSource.query('SELECT * FROM templates WHERE id = $1 AND deleted = false', [
      id,
    ])) as Record<string, unknown>[];
    if (!row) throw notFound('TEMPLATE_NOT_FOUND');
    const template = templateFromRow(row);
    if (organizationId && template.organizationId !== organizationId) throw notFound('TEMPLATE_NOT_FOUND');
    if (!(await this.canReadTemplate(principal, template.organizationId, template.id)))
      throw notFound('TEMPLATE_NOT_FOUND');
    return template;
  }

  async listTemplates(principal: Principal, organizationId: string): Promise<Template[]> {
    if (!(await this.canReadTemplate(principal, organizationId))) return [];
    const rows = (await this.dataSource.query(
      'SELECT * FROM templates WHERE organization_id = $1 AND deleted = false ORDER BY lower_name',
      [organizationId],
    )) as Record<string, unknown>[];
    return rows.map(templateFromRow);
  }

  /**
   * Coder's TemplateBuildTimeStats: the 50th and 95th percentile of the duration of each
   * transition's successful builds (milliseconds), null for a transition without one.
   */
  async buildTimeStats(
    ids: string[],
  ): Promise<Map<string, Record<string, { P50: number | null; P95: number | null }>>> {
    const rows = (await this.dataSource.query(
      `SELECT w.template_id, b.transition,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM j.completed_at - j.started_at) * 1000) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM j.completed_at - j.started_at) * 1000) AS p95
         FROM workspace_builds b JOIN workspaces w ON w.id = b.workspace_id JOIN provisioner_jobs j ON j.id = b.job_id
        WHERE w.template_id = ANY($1::uuid[]) AND j.status = 'succeeded' AND j.started_at IS NOT NULL
          AND j.completed_at IS NOT NULL
        GROUP BY w.template_id, b.transition`,
      [ids],
    )) as { template_id: string; transition: string; p50: number | string; p95: number | string }[];
    const out = new Map<string, Record<string, { P50: number | null; P95: number | null }>>();
    for (const id of ids)
      out.set(id, {
        start: { P50: null, P95: null },
        stop: { P50: null, P95: null },
        delete: { P50: null, P95: null },
      });
    for (const row of rows)
      out.get(row.template_id)![row.transition] = {
        P50: Math.round(Number(row.p50)),
        P95: Math.round(Number(row.p95)),
      };
    return out;
  }

  async templateWorkspaceCounts(ids: string[]): Promise<Map<string, number>> {
    const rows = (await this.dataSource.query(
      `SELECT template_id, count(*)::int AS count FROM workspaces WHERE deleted = false AND template_id = ANY($1::uuid[])
        GROUP BY template_id`,
      [ids],
    )) as { template_id: string; count: number }[];
    return new Map(rows.map((row) => [row.template_id, row.count]));
  }

  // ---------------------------------------------------------------- workspaces

  async requireWorkspace(principal: Principal, id: string, action = 'read'): Promise<WorkspaceRow> {
    const [workspace] = await loadWorkspaces(this.dataSource, 'w.id = $1 AND w.deleted = false', [id]);
    if (!workspace) throw notFound('WORKSPACE_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    if (action !== 'read') await this.authz.require(principal, action, workspaceObject(workspace));
    return workspace;
  }

  async workspaceByOwnerAndName(principal: Principal, owner: User, name: string): Promise<WorkspaceRow> {
    const [workspace] = await loadWorkspaces(
      this.dataSource,
      'w.owner_id = $1 AND w.lower_name = $2 AND w.deleted = false',
      [owner.uuid, name.toLowerCase()],
    );
    if (!workspace) throw notFound('WORKSPACE_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    return workspace;
  }

  /** Visible workspaces matching the filters, newest first; `count` is the filtered total. */
  async listWorkspaces(
    principal: Principal,
    filters: { owner?: string; template?: string; name?: string; status?: string; hasAiTask?: boolean },
    page: { limit: number; offset: number },
  ): Promise<{ workspaces: WorkspaceRow[]; count: number }> {
    const where = ['w.deleted = false'];
    const params: unknown[] = [];
    if (filters.owner) {
      params.push(filters.owner);
      where.push(`w.owner_id = $${params.length}`);
    }
    if (filters.template) {
      params.push(filters.template.toLowerCase());
      where.push(`t.lower_name = $${params.length}`);
    }
    if (filters.name) {
      params.push(`%${filters.name.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(`w.lower_name LIKE $${params.length}`);
    }
    if (filters.hasAiTask !== undefined) {
      params.push(filters.hasAiTask);
      where.push(
        `(SELECT b.has_ai_task FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number DESC LIMIT 1) = $${params.length}`,
      );
    }
    const rows = await loadWorkspaces(
      this.dataSource,
      where.join(' AND '),
      params,
      'ORDER BY w.created_at DESC, w.id',
    );
    let visible = await this.authz.filter(principal, 'read', rows, workspaceObject);
    if (filters.status) {
      const latest = await loadLatestBuilds(
        this.dataSource,
        visible.map((row) => row.id),
      );
      visible = visible.filter((row) => {
        const build = latest.get(row.id);
        return build && workspaceStatus(build.job.status, build.transition) === filters.status;
      });
    }
    const slice =
      page.limit > 0 ? visible.slice(page.offset, page.offset + page.limit) : visible.slice(page.offset);
    return { workspaces: slice, count: visible.length };
  }

  async latestBuilds(ids: string[]): Promise<Map<string, BuildRow>> {
    return loadLatestBuilds(this.dataSource, ids);
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
      const [taken] = (await tx.manager.query(
        'SELECT 1 FROM workspaces WHERE owner_id = $1 AND lower_name = $2 AND deleted = false',
        [owner.uuid, input.name.toLowerCase()],
      )) as unknown[];
      if (taken)
        throw new ConflictError(`Workspace "${input.name}" already exists.`, {
          fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        });
      const task = input.task;
      const remember = async (workspaceId: string): Promise<void> => {
        if (task)
          await tx.manager.query(
            'UPDATE workspaces SET task_prompt = $2, task_display_name = $3 WHERE id = $1',
            [workspaceId, task.prompt, task.displayName],
          );
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
    const [row] = (await manager.query(
      `INSERT INTO workspaces (owner_id, organization_id, template_id, name, lower_name) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [ownerId, template.organizationId, template.id, name, name.toLowerCase()],
    )) as { id: string }[];
    return row!.id;
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
    const [candidate] = (await tx.manager.query(
      `SELECT w.id FROM workspaces w
         JOIN LATERAL (SELECT b.* FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number DESC LIMIT 1) lb ON true
         JOIN provisioner_jobs j ON j.id = lb.job_id
        WHERE w.owner_id = $1 AND w.deleted = false AND lb.template_version_preset_id = $2
          AND lb.transition = 'start' AND j.status = 'succeeded'
          AND EXISTS (SELECT 1 FROM workspace_agents a JOIN workspace_resources r ON r.id = a.resource_id
                       WHERE r.job_id = lb.job_id AND a.lifecycle_state = 'ready')
        ORDER BY w.created_at LIMIT 1 FOR UPDATE OF w SKIP LOCKED`,
      [PREBUILDS_USER_ID, preset.id],
    )) as { id: string }[];
    if (!candidate) return null;
    await tx.manager.query(
      `UPDATE workspaces SET owner_id = $2, name = $3, lower_name = $4, updated_at = now(), last_used_at = now() WHERE id = $1`,
      [candidate.id, owner.uuid, name, name.toLowerCase()],
    );
    const buildId = await this.insertBuild(tx, {
      workspaceId: candidate.id,
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
    const [resource] = (await tx.manager.query(
      `INSERT INTO workspace_resources (job_id, transition, type, name)
       SELECT job_id, 'start', 'devplane_workspace', 'workspace' FROM workspace_builds WHERE id = $1 RETURNING id`,
      [buildId],
    )) as { id: string }[];
    await tx.manager.query(
      `UPDATE workspace_agents SET resource_id = $2, updated_at = now()
        WHERE id = (SELECT id FROM workspace_agents WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1)`,
      [candidate.id, resource!.id],
    );
    await this.queue.enqueue(tx.manager, RECONCILE_JOB, {}, { dedupeKey: 'reconcile' });
    return candidate.id;
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
    const [next] = (await tx.manager.query(
      'SELECT COALESCE(max(build_number), 0) + 1 AS n FROM workspace_builds WHERE workspace_id = $1',
      [input.workspaceId],
    )) as { n: number }[];
    const [idRow] = (await tx.manager.query('SELECT gen_random_uuid() AS id')) as { id: string }[];
    const job = await this.jobs.enqueue(tx.manager, {
      organizationId: input.organizationId,
      type: 'workspace_build',
      input: { workspace_build_id: idRow!.id },
      initiatorId: input.initiatorId,
      afterCommit: (callback) => tx.afterCommit(callback),
    });
    await tx.manager.query(
      `INSERT INTO workspace_builds (id, workspace_id, template_version_id, template_version_preset_id, build_number,
         transition, reason, initiator_id, job_id, has_ai_task, is_claim)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        idRow!.id,
        input.workspaceId,
        input.version.id,
        input.presetId,
        Number(next!.n),
        input.transition,
        input.reason,
        input.initiatorId,
        job.id,
        input.version.definition.has_ai_task === true,
        input.isClaim === true,
      ],
    );
    tx.afterCommit(() => this.jobs.announce(job.id));
    return idRow!.id;
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
    const [latest] = (await tx.manager.query(
      `SELECT b.template_version_id, b.template_version_preset_id, b.transition, j.status FROM workspace_builds b
         JOIN provisioner_jobs j ON j.id = b.job_id WHERE b.workspace_id = $1 ORDER BY b.build_number DESC LIMIT 1
         FOR UPDATE OF b`,
      [workspace.id],
    )) as {
      template_version_id: string;
      template_version_preset_id: string | null;
      transition: string;
      status: string;
    }[];
    if (
      latest &&
      (latest.status === 'pending' || latest.status === 'running' || latest.status === 'canceling')
    )
      throw new ConflictError('A workspace build is already active.', { code: 'BUILD_ACTIVE' });
    const versionId =
      input.templateVersionId ?? latest?.template_version_id ?? workspace.template_active_version_id;
    const [versionRow] = (await tx.manager.query('SELECT * FROM template_versions WHERE id = $1', [
      versionId,
    ])) as Record<string, unknown>[];
    if (!versionRow || (versionRow.template_id as string | null) !== workspace.template_id)
      throw new BadRequestError('Template version not found or not part of the workspace template.', {
        fields: [{ field: 'template_version_id', detail: 'unknown template version' }],
      });
    return this.insertBuild(tx, {
      workspaceId: workspace.id,
      organizationId: workspace.organization_id,
      version: versionFromRow(versionRow),
      presetId: latest?.template_version_preset_id ?? null,
      transition: input.transition,
      reason: input.reason ?? 'initiator',
      initiatorId,
    });
  }

  async builds(workspace: WorkspaceRow, page: { limit: number; offset: number }): Promise<BuildRow[]> {
    return loadBuilds(
      this.dataSource,
      `b.workspace_id = $1 ORDER BY b.build_number DESC ${page.limit > 0 ? `LIMIT ${page.limit}` : ''} OFFSET ${page.offset}`,
      [workspace.id],
    );
  }

  /** Renames a workspace (Coder's `PATCH /workspaces/{id}`); the name is unique per owner. */
  async renameWorkspace(principal: Principal, id: string, name: string): Promise<void> {
    const workspace = await this.requireWorkspace(principal, id, 'update');
    checkName(name);
    if (name === workspace.name) return;
    await this.transactions.run(async (tx) => {
      const [taken] = (await tx.manager.query(
        'SELECT 1 FROM workspaces WHERE owner_id = $1 AND lower_name = $2 AND deleted = false AND id <> $3',
        [workspace.owner_id, name.toLowerCase(), workspace.id],
      )) as unknown[];
      if (taken)
        throw new ConflictError(`Workspace "${name}" already exists.`, {
          fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
        });
      await tx.manager.query(
        'UPDATE workspaces SET name = $2, lower_name = $3, updated_at = now() WHERE id = $1',
        [workspace.id, name, name.toLowerCase()],
      );
    });
  }

  /** A template's versions, oldest first (Coder's `GET /templates/{id}/versions`). */
  async templateVersions(template: Template): Promise<TemplateVersion[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM template_versions WHERE template_id = $1 ORDER BY created_at, id',
      [template.id],
    )) as Record<string, unknown>[];
    return rows.map(versionFromRow);
  }

  /** The resources (with agents) a provisioner job produced. */
  async jobResources(jobId: string): Promise<ResourceRow[]> {
    const resources = (await this.dataSource.query(
      'SELECT * FROM workspace_resources WHERE job_id = $1 ORDER BY created_at',
      [jobId],
    )) as ResourceRow[];
    const agents = resources.length
      ? ((await this.dataSource.query(
          'SELECT * FROM workspace_agents WHERE resource_id = ANY($1::uuid[]) ORDER BY created_at',
          [resources.map((resource) => resource.id)],
        )) as AgentRow[])
      : [];
    for (const resource of resources)
      resource.agents = agents.filter((agent) => agent.resource_id === resource.id);
    return resources;
  }

  /** A workspace's build by its number (Coder's `waitForBuild` polls this). */
  async buildByNumber(workspace: WorkspaceRow, buildNumber: number): Promise<BuildRow> {
    const [build] = await loadBuilds(this.dataSource, 'b.workspace_id = $1 AND b.build_number = $2', [
      workspace.id,
      buildNumber,
    ]);
    if (!build) throw notFound('BUILD_NOT_FOUND');
    return build;
  }

  async requireBuild(principal: Principal, buildId: string): Promise<BuildRow> {
    const [build] = await loadBuilds(this.dataSource, 'b.id = $1', [buildId]);
    if (!build) throw notFound('BUILD_NOT_FOUND');
    // Builds of a deleted workspace stay readable (Coder shows the delete build).
    const [workspace] = await loadWorkspaces(this.dataSource, 'w.id = $1', [build.workspace_id]);
    if (!workspace) throw notFound('BUILD_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    return build;
  }

  /** A provisioner job's status (undefined when the job is gone). */
  async jobStatus(jobId: string): Promise<string | undefined> {
    const [row] = (await this.dataSource.query('SELECT status FROM provisioner_jobs WHERE id = $1', [
      jobId,
    ])) as { status: string }[];
    return row?.status;
  }

  async buildLogs(jobId: string, after: number) {
    return (await this.dataSource.query(
      'SELECT id::int, created_at, log_source, log_level, stage, output FROM provisioner_job_logs WHERE job_id = $1 AND id > $2 ORDER BY id',
      [jobId, after],
    )) as {
      id: number;
      created_at: Date;
      log_source: string;
      log_level: string;
      stage: string;
      output: string;
    }[];
  }

  // ---------------------------------------------------------------- sharing

  async updateAcl(
    principal: Principal,
    workspaceId: string,
    input: { userRoles: Record<string, string>; groupRoles: Record<string, string> },
  ): Promise<void> {
    const workspace = await this.requireWorkspace(principal, workspaceId);
    const [org] = (await this.dataSource
      .query(
        `SELECT o.workspace_sharing_mode AS mode FROM organizations o JOIN users u ON u.id = o.account_id WHERE u.uuid = $1`,
        [workspace.organization_id],
      )
      .catch(() => [])) as { mode: string }[];
    const mode = org?.mode ?? 'everyone';
    if (mode === 'none')
      throw new ForbiddenError('Workspace sharing is disabled for this organization.', 'permission');
    await this.authz.require(principal, 'share', workspaceObject(workspace));
    const actions = (role: string): string[] | null => {
      if (role === '') return null;
      if (role === 'use') return ['read', 'ssh', 'application_connect'];
      if (role === 'admin') return ['read', 'ssh', 'application_connect', 'update', 'start', 'stop', 'share'];
      throw new InvalidError('Invalid request to update workspace ACL', {
        fields: [{ field: 'role', detail: `role "${role}" is not a valid workspace role` }],
      });
    };
    const userAcl = { ...workspace.user_acl };
    for (const [id, role] of Object.entries(input.userRoles)) {
      if (id === workspace.owner_id)
        throw new InvalidError('Invalid request to update workspace ACL', {
          fields: [{ field: 'user_roles', detail: 'cannot change the role of the workspace owner' }],
        });
      const granted = actions(role);
      if (granted) userAcl[id] = granted;
      else delete userAcl[id];
    }
    const groupAcl = { ...workspace.group_acl };
    for (const [id, role] of Object.entries(input.groupRoles)) {
      const granted = actions(role);
      if (granted) groupAcl[id] = granted;
      else delete groupAcl[id];
    }
    if (Object.keys(input.userRoles).length) {
      const ids = Object.keys(input.userRoles);
      const found = (await this.dataSource.query('SELECT uuid FROM users WHERE uuid = ANY($1::uuid[])', [
        ids,
      ])) as unknown[];
      if (found.length !== ids.length)
        throw new InvalidError('Invalid request to update workspace ACL', {
          fields: [{ field: 'user_roles', detail: 'unknown user id' }],
        });
    }
    await this.dataSource.query(
      'UPDATE workspaces SET user_acl = $2, group_acl = $3, updated_at = now() WHERE id = $1',
      [workspace.id, JSON.stringify(userAcl), JSON.stringify(groupAcl)],
    );
  }

  /** Drops shares when an organization's sharing mode no longer allows them. */
  async clearShares(organizationAccountId: string, keepServiceAccounts: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspaces w SET user_acl = '{}', group_acl = '{}', updated_at = now()
        WHERE w.organization_id = (SELECT uuid FROM users WHERE id = $1) AND (w.user_acl <> '{}' OR w.group_acl <> '{}')
          AND NOT ($2 AND EXISTS (SELECT 1 FROM users u WHERE u.uuid = w.owner_id AND u.is_service_account))`,
      [organizationAccountId, keepServiceAccounts],
    );
  }

  /** Workspaces a user (numeric id) owns, for the account deletion rule. */
  async countOwnedBy(userId: string, manager: EntityManager): Promise<number> {
    const [row] = (await manager.query(
      `SELECT count(*)::int AS n FROM workspaces w JOIN users u ON u.uuid = w.owner_id WHERE u.id = $1 AND w.deleted = false`,
      [userId],
    )) as { n: number }[];
    return row?.n ?? 0;
  }

  /** A purged account's workspaces get delete builds (their agents stop, their directories go). */
  async purgeOwnedBy(userId: string, tx: Transaction): Promise<void> {
    const rows = await loadWorkspaces(
      tx.manager,
      'w.owner_id = (SELECT uuid FROM users WHERE id = $1) AND w.deleted = false',
      [userId],
    );
    for (const workspace of rows)
      await this.buildInTransaction(tx, workspace.owner_id, workspace, { transition: 'delete' }).catch(
        async (error: unknown) => {
          if (!(error instanceof ConflictError)) throw error;
          // A build is under way: the workspace is marked deleted; its job finishes on its own.
          await tx.manager.query('UPDATE workspaces SET deleted = true WHERE id = $1', [workspace.id]);
        },
      );
  }

  /** The WorkspaceLookup port: what other modules may learn about a workspace. */
  async summaryOf(id: string): Promise<WorkspaceSummary | null> {
    if (!isUuid(id)) return null;
    const [workspace] = await loadWorkspaces(this.dataSource, 'w.id = $1 AND w.deleted = false', [id]);
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
    const [workspace] = await loadWorkspaces(this.dataSource, 'w.id = $1 AND w.deleted = false', [id]);
    return workspace ? workspaceObject(workspace) : null;
  }
}

export function templateFromRow(row: Record<string, unknown>): Template {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    name: row.name as string,
    lowerName: row.lower_name as string,
    displayName: row.display_name as string,
    description: row.description as string,
    icon: row.icon as string,
    activeVersionId: row.active_version_id as string,
    createdBy: row.created_by as string,
    deleted: row.deleted as boolean,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

export function versionFromRow(row: Record<string, unknown>): TemplateVersion {
  return {
    id: row.id as string,
    templateId: row.template_id as string | null,
    organizationId: row.organization_id as string,
    name: row.name as string,
    message: row.message as string,
    provisioner: row.provisioner as string,
    definition: row.definition as TemplateDefinition,
    jobId: row.job_id as string,
    createdBy: row.created_by as string,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

export function presetFromRow(row: Record<string, unknown>): TemplateVersionPreset {
  return {
    id: row.id as string,
    templateVersionId: row.template_version_id as string,
    name: row.name as string,
    parameters: row.parameters as Record<string, string>,
    desiredInstances: row.desired_instances as number | null,
    isDefault: row.is_default as boolean,
    createdAt: row.created_at as Date,
  };
}

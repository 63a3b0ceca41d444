import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { WorkspaceTransition } from '../entities/workspace-build.entity';
import { PREBUILDS_USER_ID } from '../events';

/** The latest build of a workspace with its job's status (locked for the build that follows it). */
export interface LatestBuildState {
  template_version_id: string;
  template_version_preset_id: string | null;
  transition: string;
  status: string;
}

/**
 * Workspaces and their builds: names, claims of prebuilt workspaces, builds, sharing. Methods that run in a
 * transaction take the caller's EntityManager first. Owners and organizations are account uuids; what
 * workspaces need to know of the accounts comes from identity's directory.
 */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly dataSource: DataSource) {}

  // ---------------------------------------------------------------- workspaces

  /** A live workspace of the owner has this name (`exceptId`: other than that one). */
  async nameTaken(
    manager: EntityManager,
    ownerId: string,
    lowerName: string,
    exceptId?: string,
  ): Promise<boolean> {
    const [taken] = (
      exceptId === undefined
        ? await manager.query(
            'SELECT 1 FROM workspaces WHERE owner_id = $1 AND lower_name = $2 AND deleted = false',
            [ownerId, lowerName],
          )
        : await manager.query(
            'SELECT 1 FROM workspaces WHERE owner_id = $1 AND lower_name = $2 AND deleted = false AND id <> $3',
            [ownerId, lowerName, exceptId],
          )
    ) as unknown[];
    return Boolean(taken);
  }

  async insert(
    manager: EntityManager,
    input: { ownerId: string; organizationId: string; templateId: string; name: string },
  ): Promise<string> {
    const [row] = (await manager.query(
      `INSERT INTO workspaces (owner_id, organization_id, template_id, name, lower_name) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [input.ownerId, input.organizationId, input.templateId, input.name, input.name.toLowerCase()],
    )) as { id: string }[];
    return row!.id;
  }

  async rename(manager: EntityManager, id: string, name: string): Promise<void> {
    await manager.query(
      'UPDATE workspaces SET name = $2, lower_name = $3, updated_at = now() WHERE id = $1',
      [id, name, name.toLowerCase()],
    );
  }

  /** The prompt and display name of the task a workspace was created for. */
  async rememberTask(manager: EntityManager, id: string, prompt: string, displayName: string): Promise<void> {
    await manager.query('UPDATE workspaces SET task_prompt = $2, task_display_name = $3 WHERE id = $1', [
      id,
      prompt,
      displayName,
    ]);
  }

  async markDeleted(manager: EntityManager, id: string): Promise<void> {
    await manager.query('UPDATE workspaces SET deleted = true WHERE id = $1', [id]);
  }

  /** Live workspaces of an owner (uuid). */
  async countOwnedBy(manager: EntityManager, ownerUuid: string): Promise<number> {
    const [row] = (await manager.query(
      `SELECT count(*)::int AS n FROM workspaces w WHERE w.owner_id = $1 AND w.deleted = false`,
      [ownerUuid],
    )) as { n: number }[];
    return row?.n ?? 0;
  }

  // ---------------------------------------------------------------- prebuilt workspaces

  /**
   * The oldest ready prebuilt workspace of the preset (its latest build a succeeded start with a ready
   * agent), locked for the claim (`SKIP LOCKED`: a concurrent claim takes another).
   */
  async lockClaimable(manager: EntityManager, presetId: string): Promise<string | undefined> {
    const [candidate] = (await manager.query(
      `SELECT w.id FROM workspaces w
         JOIN LATERAL (SELECT b.* FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number DESC LIMIT 1) lb ON true
         JOIN provisioner_jobs j ON j.id = lb.job_id
        WHERE w.owner_id = $1 AND w.deleted = false AND lb.template_version_preset_id = $2
          AND lb.transition = 'start' AND j.status = 'succeeded'
          AND EXISTS (SELECT 1 FROM workspace_agents a JOIN workspace_resources r ON r.id = a.resource_id
                       WHERE r.job_id = lb.job_id AND a.lifecycle_state = 'ready')
        ORDER BY w.created_at LIMIT 1 FOR UPDATE OF w SKIP LOCKED`,
      [PREBUILDS_USER_ID, presetId],
    )) as { id: string }[];
    return candidate?.id;
  }

  /** A claimed prebuilt workspace becomes the owner's, under the given name. */
  async transfer(manager: EntityManager, id: string, ownerId: string, name: string): Promise<void> {
    await manager.query(
      `UPDATE workspaces SET owner_id = $2, name = $3, lower_name = $4, updated_at = now(), last_used_at = now() WHERE id = $1`,
      [id, ownerId, name, name.toLowerCase()],
    );
  }

  /** The claim build's resource, and the workspace's running agent moved onto it. */
  async moveAgentToBuild(manager: EntityManager, workspaceId: string, buildId: string): Promise<void> {
    const [resource] = (await manager.query(
      `INSERT INTO workspace_resources (job_id, transition, type, name)
       SELECT job_id, 'start', 'devplane_workspace', 'workspace' FROM workspace_builds WHERE id = $1 RETURNING id`,
      [buildId],
    )) as { id: string }[];
    await manager.query(
      `UPDATE workspace_agents SET resource_id = $2, updated_at = now()
        WHERE id = (SELECT id FROM workspace_agents WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1)`,
      [workspaceId, resource!.id],
    );
  }

  // ---------------------------------------------------------------- builds

  async nextBuildNumber(manager: EntityManager, workspaceId: string): Promise<number> {
    const [next] = (await manager.query(
      'SELECT COALESCE(max(build_number), 0) + 1 AS n FROM workspace_builds WHERE workspace_id = $1',
      [workspaceId],
    )) as { n: number }[];
    return Number(next!.n);
  }

  /** A fresh uuid from the database (the id a build gets before its job is queued). */
  async newId(manager: EntityManager): Promise<string> {
    const [idRow] = (await manager.query('SELECT gen_random_uuid() AS id')) as { id: string }[];
    return idRow!.id;
  }

  async insertBuild(
    manager: EntityManager,
    input: {
      id: string;
      workspaceId: string;
      templateVersionId: string;
      presetId: string | null;
      buildNumber: number;
      transition: WorkspaceTransition;
      reason: string;
      initiatorId: string;
      jobId: string;
      hasAiTask: boolean;
      isClaim: boolean;
    },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO workspace_builds (id, workspace_id, template_version_id, template_version_preset_id, build_number,
         transition, reason, initiator_id, job_id, has_ai_task, is_claim)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        input.id,
        input.workspaceId,
        input.templateVersionId,
        input.presetId,
        input.buildNumber,
        input.transition,
        input.reason,
        input.initiatorId,
        input.jobId,
        input.hasAiTask,
        input.isClaim,
      ],
    );
  }

  /** The latest build and its job's status, the build row locked (`FOR UPDATE OF b`). */
  async lockLatestBuild(manager: EntityManager, workspaceId: string): Promise<LatestBuildState | undefined> {
    const [latest] = (await manager.query(
      `SELECT b.template_version_id, b.template_version_preset_id, b.transition, j.status FROM workspace_builds b
         JOIN provisioner_jobs j ON j.id = b.job_id WHERE b.workspace_id = $1 ORDER BY b.build_number DESC LIMIT 1
         FOR UPDATE OF b`,
      [workspaceId],
    )) as LatestBuildState[];
    return latest;
  }

  /** The latest build's transition and job status (not locked). */
  async latestBuildState(
    manager: EntityManager,
    workspaceId: string,
  ): Promise<{ transition: string; status: string } | undefined> {
    const [latest] = (await manager.query(
      `SELECT b.transition, j.status FROM workspace_builds b JOIN provisioner_jobs j ON j.id = b.job_id
          WHERE b.workspace_id = $1 ORDER BY b.build_number DESC LIMIT 1`,
      [workspaceId],
    )) as { transition: string; status: string }[];
    return latest;
  }

  /** Whether the latest build has an AI task (a task's workspace); undefined without a build. */
  async latestHasAiTask(workspaceId: string): Promise<boolean | undefined> {
    const [latest] = (await this.dataSource.query(
      'SELECT has_ai_task FROM workspace_builds WHERE workspace_id = $1 ORDER BY build_number DESC LIMIT 1',
      [workspaceId],
    )) as { has_ai_task: boolean }[];
    return latest?.has_ai_task;
  }

  // ---------------------------------------------------------------- sharing

  async saveAcl(
    id: string,
    userAcl: Record<string, string[]>,
    groupAcl: Record<string, string[]>,
  ): Promise<void> {
    await this.dataSource.query(
      'UPDATE workspaces SET user_acl = $2, group_acl = $3, updated_at = now() WHERE id = $1',
      [id, JSON.stringify(userAcl), JSON.stringify(groupAcl)],
    );
  }

  /** The owners (uuids) of an organization's shared workspaces. */
  async ownersOfSharedWorkspaces(organizationUuid: string): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT DISTINCT owner_id::text AS owner_id FROM workspaces
        WHERE organization_id = $1 AND (user_acl <> '{}' OR group_acl <> '{}')`,
      [organizationUuid],
    )) as { owner_id: string }[];
    return rows.map((row) => row.owner_id);
  }

  /** Drops the shares of an organization's workspaces, except those of the owners in `keepOwners`. */
  async clearShares(organizationUuid: string, keepOwners: string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspaces w SET user_acl = '{}', group_acl = '{}', updated_at = now()
        WHERE w.organization_id = $1 AND (w.user_acl <> '{}' OR w.group_acl <> '{}')
          AND NOT (w.owner_id = ANY($2::uuid[]))`,
      [organizationUuid, keepOwners],
    );
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PrebuiltWorkspace, ReinitState } from '../build-rules';
import { PREBUILDS_USER_ID } from '../events';
import type { WorkspaceRow } from '../workspace-views';
import { loadWorkspaces } from './workspace-views.repository';

/**
 * The SQL of prebuilt workspaces: what the reconciler reads (templates, presets that want prebuilds,
 * the prebuilds user's workspaces) and the reinit stream's opening state. A method that runs inside the
 * reconciler's transaction takes its EntityManager.
 */
@Injectable()
export class PrebuildsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether some preset wants prebuilds or prebuilt workspaces exist (false when the read fails). */
  async reconcileNeeded(): Promise<boolean> {
    const [row] = (await this.dataSource
      .query(
        `SELECT EXISTS (SELECT 1 FROM template_version_presets p JOIN templates t ON t.active_version_id = p.template_version_id
                         WHERE p.desired_instances > 0 AND t.deleted = false)
             OR EXISTS (SELECT 1 FROM workspaces WHERE owner_id = $1 AND deleted = false) AS needed`,
        [PREBUILDS_USER_ID],
      )
      .catch(() => [{ needed: false }])) as { needed: boolean }[];
    return row?.needed === true;
  }

  /** Serializes reconciliation across instances until the caller's transaction ends. */
  async lockReconcile(manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('devplane.prebuilds.reconcile'))`);
  }

  async liveTemplates(manager: EntityManager): Promise<Record<string, unknown>[]> {
    return (await manager.query(`SELECT * FROM templates WHERE deleted = false`)) as Record<
      string,
      unknown
    >[];
  }

  /** The version's presets that want prebuilt workspaces. */
  async presetsWantingPrebuilds(
    manager: EntityManager,
    versionId: string,
  ): Promise<{ id: string; desired_instances: number }[]> {
    return (await manager.query(
      `SELECT id, desired_instances FROM template_version_presets WHERE template_version_id = $1 AND desired_instances > 0`,
      [versionId],
    )) as { id: string; desired_instances: number }[];
  }

  /** The prebuilds user's live workspaces with their latest build's preset, transition and job status, oldest first. */
  async prebuiltWorkspaces(manager: EntityManager): Promise<(PrebuiltWorkspace & { template_id: string })[]> {
    return (await manager.query(
      `SELECT w.id, w.template_id, lb.template_version_preset_id AS preset_id, lb.transition, j.status
           FROM workspaces w
           JOIN LATERAL (SELECT b.* FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number DESC LIMIT 1) lb ON true
           JOIN provisioner_jobs j ON j.id = lb.job_id
          WHERE w.owner_id = $1 AND w.deleted = false ORDER BY w.created_at`,
      [PREBUILDS_USER_ID],
    )) as (PrebuiltWorkspace & { template_id: string })[];
  }

  async templateVersionRow(
    manager: EntityManager,
    versionId: string,
  ): Promise<Record<string, unknown> | undefined> {
    const [versionRow] = (await manager.query('SELECT * FROM template_versions WHERE id = $1', [
      versionId,
    ])) as Record<string, unknown>[];
    return versionRow;
  }

  /** A workspace (deleted or not) as the build methods take it. */
  async workspace(manager: EntityManager, id: string): Promise<WorkspaceRow | undefined> {
    const [workspace] = await loadWorkspaces(manager, 'w.id = $1', [id]);
    return workspace;
  }

  /** The reinit stream's view of a live workspace: owner, first build's initiator, latest claim build's status. */
  async reinitState(workspaceId: string): Promise<ReinitState | undefined> {
    const [state] = (await this.dataSource.query(
      `SELECT w.owner_id,
              (SELECT b.initiator_id FROM workspace_builds b WHERE b.workspace_id = w.id ORDER BY b.build_number LIMIT 1) AS first_initiator,
              (SELECT j.status FROM workspace_builds b JOIN provisioner_jobs j ON j.id = b.job_id
                WHERE b.workspace_id = w.id AND b.is_claim ORDER BY b.build_number DESC LIMIT 1) AS claim_status
         FROM workspaces w WHERE w.id = $1 AND w.deleted = false`,
      [workspaceId],
    )) as ReinitState[];
    return state;
  }
}

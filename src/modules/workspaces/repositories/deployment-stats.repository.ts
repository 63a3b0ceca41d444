import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface WorkspaceStatusCounts {
  pending: number;
  building: number;
  running: number;
  failed: number;
  stopped: number;
}

/** Deployment-wide figures of the workspaces tables (Coder's `/deployment/stats`, `/debug/health`). */
@Injectable()
export class DeploymentStatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Live workspaces by the state of their latest build (one scan, the latest build by its index). */
  async workspaceStatusCounts(): Promise<WorkspaceStatusCounts> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE j.status = 'pending')::int AS pending,
              count(*) FILTER (WHERE j.status IN ('running', 'canceling'))::int AS building,
              count(*) FILTER (WHERE j.status = 'succeeded' AND lb.transition = 'start')::int AS running,
              count(*) FILTER (WHERE j.status IN ('failed', 'canceled'))::int AS failed,
              count(*) FILTER (WHERE j.status = 'succeeded' AND lb.transition <> 'start')::int AS stopped
         FROM workspaces w
         JOIN LATERAL (SELECT b.job_id, b.transition FROM workspace_builds b WHERE b.workspace_id = w.id
                        ORDER BY b.build_number DESC LIMIT 1) lb ON true
         JOIN provisioner_jobs j ON j.id = lb.job_id
        WHERE w.deleted = false`,
    )) as WorkspaceStatusCounts[];
    return row ?? { pending: 0, building: 0, running: 0, failed: 0, stopped: 0 };
  }
}

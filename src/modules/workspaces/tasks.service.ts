import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError } from '../../platform/errors/domain-error';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../auth/principal';
import type { User } from '../identity/entities/user.entity';
import { TASK_NOTIFICATION_TEMPLATES } from './events';
import { loadWorkspaces, type WorkspaceRow } from './workspace-views';
import { notFound, workspaceObject, WorkspacesService } from './workspaces.service';
import { isUuid } from '../../platform/text/uuid';

/**
 * Tasks (reference D.5): a task is a workspace whose latest build has `has_ai_task`. Pause is a stop
 * build with reason `task_manual_pause`, resume a start build with `task_resume`.
 */
@Injectable()
export class TasksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly workspaces: WorkspacesService,
  ) {}

  /** `{task}`: the task's (workspace's) id or name, for `{user}`; 404 when not visible or not a task. */
  async requireTask(principal: Principal, owner: User, ref: string): Promise<WorkspaceRow> {
    const byId = isUuid(ref);
    const [workspace] = await loadWorkspaces(
      this.dataSource,
      `w.owner_id = $1 AND w.deleted = false AND ${byId ? 'w.id = $2' : 'w.lower_name = $2'}`,
      [owner.uuid, byId ? ref : ref.toLowerCase()],
    );
    if (!workspace) throw notFound('TASK_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    const [latest] = (await this.dataSource.query(
      'SELECT has_ai_task FROM workspace_builds WHERE workspace_id = $1 ORDER BY build_number DESC LIMIT 1',
      [workspace.id],
    )) as { has_ai_task: boolean }[];
    if (!latest?.has_ai_task) throw notFound('TASK_NOT_FOUND');
    return workspace;
  }

  async pause(principal: Principal, task: WorkspaceRow): Promise<string> {
    return this.transition(principal, task, 'stop', 'task_manual_pause');
  }

  async resume(principal: Principal, task: WorkspaceRow): Promise<string> {
    return this.transition(principal, task, 'start', 'task_resume');
  }

  private async transition(
    principal: Principal,
    task: WorkspaceRow,
    transition: 'start' | 'stop',
    reason: string,
  ): Promise<string> {
    await this.authz.require(principal, transition, workspaceObject(task));
    return this.transactions.run(async (tx) => {
      const [latest] = (await tx.manager.query(
        `SELECT b.transition, j.status FROM workspace_builds b JOIN provisioner_jobs j ON j.id = b.job_id
          WHERE b.workspace_id = $1 ORDER BY b.build_number DESC LIMIT 1`,
        [task.id],
      )) as { transition: string; status: string }[];
      if (latest && latest.status === 'succeeded' && latest.transition === transition)
        throw new ConflictError(
          transition === 'start' ? 'Task workspace is already running.' : 'Task workspace is already paused.',
          {
            code: 'TASK_STATE',
          },
        );
      const buildId = await this.workspaces.buildInTransaction(tx, principal.user.uuid, task, {
        transition,
        reason,
      });
      const [owner] = (await tx.manager.query('SELECT id FROM users WHERE uuid = $1', [task.owner_id])) as {
        id: string;
      }[];
      if (owner)
        tx.emit('notification.requested', {
          templateId:
            transition === 'stop'
              ? TASK_NOTIFICATION_TEMPLATES.taskPaused
              : TASK_NOTIFICATION_TEMPLATES.taskResumed,
          userId: String(owner.id),
          labels: {
            task: task.name,
            task_id: task.id,
            workspace: task.name,
            ...(transition === 'stop' ? { pause_reason: 'manual' } : {}),
          },
          targets: [task.id, task.owner_id, task.organization_id],
          createdBy: 'tasks',
        });
      return buildId;
    });
  }
}

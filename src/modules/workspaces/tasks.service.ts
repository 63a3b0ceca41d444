import { IdentityDirectory } from '../identity/identity-directory.service';
import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError } from '../../platform/errors/domain-error';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import type { User } from '../identity/entities/user.entity';
import { TASK_NOTIFICATION_TEMPLATES } from './events';
import type { WorkspaceRow } from './workspace-views';
import { WorkspaceViewsRepository } from './repositories/workspace-views.repository';
import { WorkspacesRepository } from './repositories/workspaces.repository';
import { taskAlreadyIn } from './workspace-rules';
import { notFound, workspaceObject, WorkspacesService } from './workspaces.service';
import { isUuid } from '../../platform/text/uuid';

/**
 * Tasks (reference D.5): a task is a workspace whose latest build has `has_ai_task`. Pause is a stop
 * build with reason `task_manual_pause`, resume a start build with `task_resume`.
 */
@Injectable()
export class TasksService {
  constructor(
    private readonly views: WorkspaceViewsRepository,
    private readonly workspacesRepo: WorkspacesRepository,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly workspaces: WorkspacesService,
    private readonly directory: IdentityDirectory,
  ) {}

  /** `{task}`: the task's (workspace's) id or name, for `{user}`; 404 when not visible or not a task. */
  async requireTask(principal: Principal, owner: User, ref: string): Promise<WorkspaceRow> {
    const byId = isUuid(ref);
    const workspace = await this.views.ownedWorkspaceByRef(owner.uuid, byId ? ref : ref.toLowerCase(), byId);
    if (!workspace) throw notFound('TASK_NOT_FOUND');
    await this.authz.require(principal, 'read', workspaceObject(workspace), { notFound: true });
    if (!(await this.workspacesRepo.latestHasAiTask(workspace.id))) throw notFound('TASK_NOT_FOUND');
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
      const latest = await this.workspacesRepo.latestBuildState(tx.manager, task.id);
      if (taskAlreadyIn(latest, transition))
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
      const ownerAccountId = (await this.directory.namesByUuids([task.owner_id], tx.manager)).get(
        task.owner_id,
      )?.id;
      if (ownerAccountId)
        tx.emit('notification.requested', {
          templateId:
            transition === 'stop'
              ? TASK_NOTIFICATION_TEMPLATES.taskPaused
              : TASK_NOTIFICATION_TEMPLATES.taskResumed,
          userId: String(ownerAccountId),
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

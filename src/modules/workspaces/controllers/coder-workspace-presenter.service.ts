import { Injectable } from '@nestjs/common';
import { presentWorkspace } from '../coder-workspace.presenter';
import type { WorkspaceDto } from '../dto/workspaces.dto';
import type { WorkspaceRow } from '../workspace-views';
import { WorkspacesService } from '../workspaces.service';

/**
 * Coder's Workspace JSON for any number of workspace rows (their latest builds and the account names in a
 * fixed number of queries): the workspaces routes and the workspace watch (WebSocket and SSE) share it.
 */
@Injectable()
export class CoderWorkspacePresenter {
  constructor(private readonly workspaces: WorkspacesService) {}

  async presentMany(workspaces: WorkspaceRow[]): Promise<WorkspaceDto[]> {
    const latest = await this.workspaces.latestBuilds(workspaces.map((workspace) => workspace.id));
    // Owners, initiators and organizations (organizations are accounts too).
    const users = await this.workspaces.userSummaries([
      ...workspaces.map((workspace) => workspace.owner_id),
      ...workspaces.map((workspace) => workspace.organization_id),
      ...[...latest.values()].map((build) => build.initiator_id),
    ]);
    const out: WorkspaceDto[] = [];
    for (const workspace of workspaces) {
      const build = latest.get(workspace.id);
      if (build)
        out.push(
          presentWorkspace(
            workspace,
            build,
            users,
            this.workspaces.config.agentDisconnectMs,
          ) as unknown as WorkspaceDto,
        );
    }
    return out;
  }
}

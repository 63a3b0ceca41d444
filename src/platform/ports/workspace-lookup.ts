/**
 * What other modules may learn about a workspace (chats bind to one): implemented by the workspaces
 * module, absent when it is not loaded. The RBAC fields let the caller check access with auth's
 * AuthorizationService (`{type: 'workspace', id, ownerId, orgId, aclUserList, aclGroupList}`).
 */
export interface WorkspaceSummary {
  id: string;
  ownerId: string;
  organizationId: string;
  userAcl: Record<string, string[]>;
  groupAcl: Record<string, string[]>;
}

export abstract class WorkspaceLookup {
  abstract find(id: string): Promise<WorkspaceSummary | null>;
}

/** The workspace as an RBAC object for auth's AuthorizationService. */
export function workspaceRbacObject(workspace: WorkspaceSummary): {
  type: 'workspace';
  id: string;
  ownerId: string;
  orgId: string;
  aclUserList: Record<string, string[]>;
  aclGroupList: Record<string, string[]>;
} {
  return {
    type: 'workspace',
    id: workspace.id,
    ownerId: workspace.ownerId,
    orgId: workspace.organizationId,
    aclUserList: workspace.userAcl,
    aclGroupList: workspace.groupAcl,
  };
}

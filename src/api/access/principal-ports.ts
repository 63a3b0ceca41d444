/**
 * Ports for the principals beyond users. The workspaces module implements them and registers the
 * implementations under these tokens (`{ provide: WORKSPACE_AGENT_LOOKUP, useExisting: ... }` in a
 * global module); until then agent tokens and provisioner keys are refused like any unknown token.
 */

/** What auth needs to know about a workspace agent. */
export interface WorkspaceAgentIdentity {
  agentId: string;
  workspaceId: string;
  /** The workspace owner's user uuid. */
  ownerId: string;
}

/** What auth needs to know about a provisioner daemon's key. */
export interface ProvisionerKeyIdentity {
  keyId: string;
  organizationId: string;
  name: string;
  tags: Record<string, string>;
}

export interface WorkspaceAgentLookup {
  /** The agent whose token this is, or null (unknown, or the workspace is gone). */
  findByToken(token: string): Promise<WorkspaceAgentIdentity | null>;
}

export interface ProvisionerKeyLookup {
  /** The key's identity when the presented secret matches, or null. */
  findByKey(key: string): Promise<ProvisionerKeyIdentity | null>;
}

export const WORKSPACE_AGENT_LOOKUP = Symbol('devplane:workspace-agent-lookup');
export const PROVISIONER_KEY_LOOKUP = Symbol('devplane:provisioner-key-lookup');

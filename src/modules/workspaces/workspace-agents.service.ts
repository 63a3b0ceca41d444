import type { AgentMetadataItem } from './entities/workspace-agent.entity';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { Inject, Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { WorkspaceAgentIdentity, WorkspaceAgentLookup } from '../../api/access/principal-ports';
import { UserSecretsService } from '../identity/secrets/user-secrets.service';
import { PREBUILDS_USER_ID, PREBUILDS_USER_NAME } from './events';
import { hashToken } from './provisioner-jobs.service';
import { WorkspaceAgentsRepository } from './repositories/workspace-agents.repository';
import type { AgentRow } from './workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

export const LIFECYCLE_STATES = [
  'created',
  'starting',
  'start_timeout',
  'start_error',
  'ready',
  'shutting_down',
  'shutdown_timeout',
  'shutdown_error',
  'off',
] as const;

export const CONNECTION_TYPES = [
  'ssh',
  'vscode',
  'jetbrains',
  'reconnecting_pty',
  'workspace_app',
  'port_forwarding',
] as const;

/** What the agent learns about itself (`GET /workspaceagents/me/manifest`). */
export interface AgentManifest {
  agent_id: string;
  agent_name: string;
  workspace_id: string;
  workspace_name: string;
  owner_id: string;
  owner_name: string;
  directory: string;
  environment_variables: Record<string, string>;
  apps: unknown[];
  startup_script: string;
  vnc_command: string;
  /** The metadata items the agent runs (issue 50.2). */
  metadata: { key: string; display_name: string; script: string; interval: number; timeout: number }[];
}

/** One result the agent reports for a metadata item. */
export interface MetadataResult {
  key: string;
  value: string;
  error: string;
  collected_at: string;
}

/**
 * Workspace agents as principals (the WORKSPACE_AGENT_LOOKUP port: a token is valid while its agent
 * belongs to the workspace's latest start build) and what they report: lifecycle, connection,
 * their environment, the sessions they serve (connection log).
 */
@Injectable()
export class WorkspaceAgentsService implements WorkspaceAgentLookup {
  constructor(
    private readonly agents: WorkspaceAgentsRepository,
    private readonly secrets: UserSecretsService,
    private readonly transactions: TransactionRunner,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
    private readonly directory: IdentityDirectory,
  ) {}

  async findByToken(token: string): Promise<WorkspaceAgentIdentity | null> {
    const row = await this.agents.findByTokenHash(hashToken(token));
    return row ? { agentId: row.id, workspaceId: row.workspace_id, ownerId: row.owner_id } : null;
  }

  async manifest(agent: WorkspaceAgentIdentity): Promise<AgentManifest> {
    const row = await this.agents.manifestRow(agent.agentId);
    if (!row) throw new NotFoundError('Agent not found.');
    const ownerId = row.owner_id as string;
    const owner = (await this.directory.namesByUuids([ownerId])).get(ownerId);
    const environment = { ...(row.environment_variables as Record<string, string>) };
    // The owner's secrets that name an environment variable reach the agent (not a prebuild's: it has no owner yet).
    if (ownerId !== PREBUILDS_USER_ID && owner) {
      for (const secret of await this.secrets.forAgent(owner.id))
        if (secret.envName) environment[secret.envName] = secret.value;
    }
    return {
      agent_id: row.id as string,
      agent_name: row.name as string,
      workspace_id: row.workspace_id as string,
      workspace_name: row.workspace_name as string,
      owner_id: ownerId,
      owner_name: ownerId === PREBUILDS_USER_ID ? PREBUILDS_USER_NAME : (owner?.name ?? ''),
      directory: row.directory as string,
      environment_variables: environment,
      apps: row.apps as unknown[],
      startup_script: row.startup_script as string,
      vnc_command: row.vnc_command as string,
      metadata: ((row.metadata as AgentMetadataItem[] | null) ?? []).map((item) => ({
        key: item.key,
        display_name: item.display_name,
        script: item.script,
        interval: item.interval,
        timeout: item.timeout,
      })),
    };
  }

  /** The agent's own facts at start (version, OS, directory). */
  async reportStartup(
    agent: WorkspaceAgentIdentity,
    input: { version: string; operatingSystem: string; architecture: string; directory: string },
  ): Promise<void> {
    await this.agents.recordStartup(agent.agentId, input);
  }

  async reportLifecycle(agent: WorkspaceAgentIdentity, state: string, ownerId?: string): Promise<void> {
    if (!(LIFECYCLE_STATES as readonly string[]).includes(state))
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'state', detail: `unknown lifecycle state "${state}"` }],
      });
    await this.agents.recordLifecycle(agent.agentId, state, ownerId ?? null);
  }

  /** App health the agent probed (`{app id: healthy|unhealthy}`); unknown ids are 400. */
  async reportAppHealth(agent: WorkspaceAgentIdentity, healths: Record<string, string>): Promise<void> {
    await this.transactions.run(async (tx) => {
      const apps = (await this.agents.lockApps(tx.manager, agent.agentId)) ?? [];
      for (const [id, health] of Object.entries(healths)) {
        const app = apps.find((candidate) => candidate.id === id);
        if (!app)
          throw new InvalidError('Validation failed.', {
            fields: [{ field: 'healths', detail: `unknown app id ${id}` }],
          });
        if (health !== 'healthy' && health !== 'unhealthy')
          throw new InvalidError('Validation failed.', {
            fields: [{ field: 'healths', detail: `health "${health}" must be healthy or unhealthy` }],
          });
        app.health = health;
      }
      await this.agents.saveApps(tx.manager, agent.agentId, apps);
    });
  }

  /** Metadata results the agent collected; unknown keys are 400 and change nothing. */
  async reportMetadata(agent: WorkspaceAgentIdentity, results: MetadataResult[]): Promise<void> {
    await this.transactions.run(async (tx) => {
      const items = (await this.agents.lockMetadata(tx.manager, agent.agentId)) ?? [];
      for (const result of results) {
        const item = items.find((candidate) => candidate.key === result.key);
        if (!item)
          throw new InvalidError('Validation failed.', {
            fields: [{ field: 'metadata', detail: `unknown metadata key ${result.key}` }],
          });
        item.value = result.value.slice(0, 10 * 1024);
        item.error = result.error.slice(0, 10 * 1024);
        item.collected_at = result.collected_at;
      }
      await this.agents.saveMetadata(tx.manager, agent.agentId, items);
    });
  }

  /** The agent's metadata items with their latest results (the watch; the caller checks access). */
  async metadataOf(agentId: string): Promise<AgentMetadataItem[]> {
    return (await this.agents.metadataOf(agentId)) ?? [];
  }

  /** Heartbeat: connected now; `disconnect` marks a clean disconnection. */
  async reportConnection(agent: WorkspaceAgentIdentity, disconnect: boolean): Promise<void> {
    if (disconnect) await this.agents.recordDisconnected(agent.agentId);
    else await this.agents.recordConnected(agent.agentId);
  }

  /** A session the agent served: `connect` opens a log entry, `disconnect` closes it (idempotent by connection id). */
  async reportConnectionLog(
    agent: WorkspaceAgentIdentity,
    input: {
      id: string;
      action: 'connect' | 'disconnect';
      type: string;
      ip?: string;
      userAgent?: string;
      slugOrPort?: string;
      reason?: string;
      code?: number;
      time?: Date;
      userId?: string;
    },
  ): Promise<void> {
    const time = input.time ?? new Date();
    if (input.action === 'connect') {
      await this.agents.openConnectionLog(agent.agentId, {
        connectionId: input.id,
        time,
        type: input.type,
        ip: input.ip ?? null,
        slugOrPort: input.slugOrPort ?? null,
        userAgent: input.userAgent ?? null,
        userId: input.userId ?? null,
      });
      return;
    }
    const closed = await this.agents.closeConnectionLog(agent.agentId, input.id, {
      time,
      reason: input.reason ?? null,
      code: input.code ?? null,
    });
    if (!closed)
      throw new NotFoundError('No open connection with this id.', { code: 'CONNECTION_NOT_FOUND' });
  }

  /** An agent by id (the users' view; the caller checks access to its workspace). */
  findAgent(id: string): Promise<AgentRow | undefined> {
    return this.agents.findById(id);
  }

  get disconnectMs(): number {
    return this.config.agentDisconnectMs;
  }
}

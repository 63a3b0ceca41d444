import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { WorkspaceAgentIdentity, WorkspaceAgentLookup } from '../auth/principal-ports';
import { UserSecretsService } from '../identity/secrets/user-secrets.service';
import { PREBUILDS_USER_ID, PREBUILDS_USER_NAME } from './events';
import { hashToken } from './provisioner-jobs.service';
import { resultRows } from '../../platform/database/result-rows';
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
}

/**
 * Workspace agents as principals (the WORKSPACE_AGENT_LOOKUP port: a token is valid while its agent
 * belongs to the workspace's latest start build) and what they report: lifecycle, connection,
 * their environment, the sessions they serve (connection log).
 */
@Injectable()
export class WorkspaceAgentsService implements WorkspaceAgentLookup {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: UserSecretsService,
    private readonly transactions: TransactionRunner,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  async findByToken(token: string): Promise<WorkspaceAgentIdentity | null> {
    const [row] = (await this.dataSource.query(
      `SELECT a.id, a.workspace_id, w.owner_id FROM workspace_agents a
         JOIN workspaces w ON w.id = a.workspace_id AND w.deleted = false
         JOIN workspace_resources r ON r.id = a.resource_id
         JOIN workspace_builds b ON b.job_id = r.job_id
        WHERE a.token_hash = $1
          AND b.build_number = (SELECT max(build_number) FROM workspace_builds WHERE workspace_id = w.id)`,
      [hashToken(token)],
    )) as { id: string; workspace_id: string; owner_id: string }[];
    return row ? { agentId: row.id, workspaceId: row.workspace_id, ownerId: row.owner_id } : null;
  }

  async manifest(agent: WorkspaceAgentIdentity): Promise<AgentManifest> {
    const [row] = (await this.dataSource.query(
      `SELECT a.*, w.name AS workspace_name, w.owner_id, u.name AS owner_name, u.id AS owner_numeric_id
         FROM workspace_agents a JOIN workspaces w ON w.id = a.workspace_id
         LEFT JOIN users u ON u.uuid = w.owner_id WHERE a.id = $1`,
      [agent.agentId],
    )) as Record<string, unknown>[];
    if (!row) throw new NotFoundError('Agent not found.');
    const ownerId = row.owner_id as string;
    const environment = { ...(row.environment_variables as Record<string, string>) };
    // The owner's secrets that name an environment variable reach the agent (not a prebuild's: it has no owner yet).
    if (ownerId !== PREBUILDS_USER_ID && row.owner_numeric_id) {
      for (const secret of await this.secrets.forAgent(String(row.owner_numeric_id)))
        if (secret.envName) environment[secret.envName] = secret.value;
    }
    return {
      agent_id: row.id as string,
      agent_name: row.name as string,
      workspace_id: row.workspace_id as string,
      workspace_name: row.workspace_name as string,
      owner_id: ownerId,
      owner_name: ownerId === PREBUILDS_USER_ID ? PREBUILDS_USER_NAME : ((row.owner_name as string) ?? ''),
      directory: row.directory as string,
      environment_variables: environment,
      apps: row.apps as unknown[],
      startup_script: row.startup_script as string,
      vnc_command: row.vnc_command as string,
    };
  }

  /** The agent's own facts at start (version, OS, directory). */
  async reportStartup(
    agent: WorkspaceAgentIdentity,
    input: { version: string; operatingSystem: string; architecture: string; directory: string },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_agents SET version = $2, operating_system = $3, architecture = $4, directory = $5,
         first_connected_at = COALESCE(first_connected_at, now()), last_connected_at = now(), disconnected_at = NULL,
         updated_at = now() WHERE id = $1`,
      [agent.agentId, input.version, input.operatingSystem, input.architecture, input.directory],
    );
  }

  async reportLifecycle(agent: WorkspaceAgentIdentity, state: string, ownerId?: string): Promise<void> {
    if (!(LIFECYCLE_STATES as readonly string[]).includes(state))
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'state', detail: `unknown lifecycle state "${state}"` }],
      });
    await this.dataSource.query(
      `UPDATE workspace_agents SET lifecycle_state = $2::varchar,
         started_at = CASE WHEN $2::varchar = 'starting' THEN now() ELSE started_at END,
         ready_at = CASE WHEN $2::varchar IN ('ready', 'start_error', 'start_timeout') THEN now() ELSE ready_at END,
         initialized_owner_id = COALESCE($3::uuid, initialized_owner_id),
         last_connected_at = now(), first_connected_at = COALESCE(first_connected_at, now()), updated_at = now()
       WHERE id = $1`,
      [agent.agentId, state, ownerId ?? null],
    );
  }

  /** App health the agent probed (`{app id: healthy|unhealthy}`); unknown ids are 400. */
  async reportAppHealth(agent: WorkspaceAgentIdentity, healths: Record<string, string>): Promise<void> {
    await this.transactions.run(async (tx) => {
      const [row] = (await tx.manager.query('SELECT apps FROM workspace_agents WHERE id = $1 FOR UPDATE', [
        agent.agentId,
      ])) as {
        apps: { id: string; health?: string }[];
      }[];
      const apps = row?.apps ?? [];
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
      await tx.manager.query('UPDATE workspace_agents SET apps = $2, updated_at = now() WHERE id = $1', [
        agent.agentId,
        JSON.stringify(apps),
      ]);
    });
  }

  /** Heartbeat: connected now; `disconnect` marks a clean disconnection. */
  async reportConnection(agent: WorkspaceAgentIdentity, disconnect: boolean): Promise<void> {
    await this.dataSource.query(
      disconnect
        ? `UPDATE workspace_agents SET disconnected_at = now(), updated_at = now() WHERE id = $1`
        : `UPDATE workspace_agents SET last_connected_at = now(), first_connected_at = COALESCE(first_connected_at, now()),
             disconnected_at = NULL WHERE id = $1`,
      [agent.agentId],
    );
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
    },
  ): Promise<void> {
    const time = input.time ?? new Date();
    if (input.action === 'connect') {
      await this.dataSource.query(
        `INSERT INTO connection_logs (connect_time, organization_id, workspace_owner_id, workspace_id, workspace_name, agent_id,
           agent_name, type, ip, connection_id, slug_or_port, user_agent)
         SELECT $2, w.organization_id, w.owner_id, w.id, w.name, a.id, a.name, $3, $4, $5, $6, $7
           FROM workspace_agents a JOIN workspaces w ON w.id = a.workspace_id WHERE a.id = $1
         ON CONFLICT (agent_id, connection_id) DO NOTHING`,
        [
          agent.agentId,
          time,
          input.type,
          input.ip ?? null,
          input.id,
          input.slugOrPort ?? null,
          input.userAgent ?? null,
        ],
      );
      return;
    }
    const updated = resultRows(
      await this.dataSource.query(
        `UPDATE connection_logs SET disconnect_time = $3, disconnect_reason = $4, code = $5
          WHERE agent_id = $1 AND connection_id = $2 RETURNING id`,
        [agent.agentId, input.id, time, input.reason ?? null, input.code ?? null],
      ),
    );
    if (updated.length === 0)
      throw new NotFoundError('No open connection with this id.', { code: 'CONNECTION_NOT_FOUND' });
  }

  get disconnectMs(): number {
    return this.config.agentDisconnectMs;
  }
}

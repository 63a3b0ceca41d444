import type { AgentMetadataItem } from '../entities/workspace-agent.entity';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';
import type { AgentRow } from '../workspace-views';

/** An agent's name and sealed token (the token is opened with the agent's context). */
export interface SealedAgentRow {
  id: string;
  name: string;
  sealed_token: string;
}

/** What a new agent is made with (a start build's first acquisition). */
export interface NewAgent {
  id: string;
  resourceId: string;
  workspaceId: string;
  tokenHash: string;
  sealedToken: string;
  environmentVariables: Record<string, string>;
  apps: unknown[];
  startupScript: string;
  vncCommand: string;
  /** The template's metadata items (issue 50.2). */
  metadata?: unknown[];
}

/** A session an agent served, as it reports it (connection log). */
export interface ConnectionOpened {
  connectionId: string;
  time: Date;
  type: string;
  ip: string | null;
  slugOrPort: string | null;
  userAgent: string | null;
  /** The user of a session the server itself opened (terminal, app): null for the agent's own reports. */
  userId?: string | null;
}

/**
 * The SQL of workspace agents (`workspace_agents`, their `workspace_resources`) and of what they report
 * (lifecycle, connection, app health, the connection log). A method that runs inside the caller's
 * transaction takes its EntityManager. Owners are uuids; their accounts come from identity's directory.
 */
@Injectable()
export class WorkspaceAgentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string): Promise<AgentRow | undefined> {
    const [agent] = (await this.dataSource.query('SELECT * FROM workspace_agents WHERE id = $1', [
      id,
    ])) as AgentRow[];
    return agent;
  }

  /** The agent of the token, while it belongs to its (live) workspace's latest build. */
  async findByTokenHash(
    tokenHash: string,
  ): Promise<{ id: string; workspace_id: string; owner_id: string } | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT a.id, a.workspace_id, w.owner_id FROM workspace_agents a
         JOIN workspaces w ON w.id = a.workspace_id AND w.deleted = false
         JOIN workspace_resources r ON r.id = a.resource_id
         JOIN workspace_builds b ON b.job_id = r.job_id
        WHERE a.token_hash = $1
          AND b.build_number = (SELECT max(build_number) FROM workspace_builds WHERE workspace_id = w.id)`,
      [tokenHash],
    )) as { id: string; workspace_id: string; owner_id: string }[];
    return row;
  }

  /** The agent with its workspace's name and owner (uuid). */
  async manifestRow(agentId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT a.*, w.name AS workspace_name, w.owner_id
         FROM workspace_agents a JOIN workspaces w ON w.id = a.workspace_id WHERE a.id = $1`,
      [agentId],
    )) as Record<string, unknown>[];
    return row;
  }

  /** The newest agent of the live workspace's latest build. */
  async currentAgentOfWorkspace(workspaceId: string): Promise<AgentRow | undefined> {
    const [agent] = (await this.dataSource.query(
      `SELECT a.* FROM workspace_agents a
         JOIN workspace_resources r ON r.id = a.resource_id
         JOIN workspace_builds b ON b.job_id = r.job_id
         JOIN workspaces w ON w.id = b.workspace_id AND w.deleted = false
        WHERE w.id = $1 AND b.build_number = (SELECT max(build_number) FROM workspace_builds WHERE workspace_id = w.id)
        ORDER BY a.created_at DESC LIMIT 1`,
      [workspaceId],
    )) as AgentRow[];
    return agent;
  }

  // ------------------------------------------------------------ made by a build's job

  /** The agent on a resource of the job (made by an earlier run of it). */
  async agentOfJob(manager: EntityManager, jobId: string): Promise<SealedAgentRow | undefined> {
    const existing = (await manager.query(
      `SELECT a.id, a.name, a.sealed_token FROM workspace_agents a
         JOIN workspace_resources r ON r.id = a.resource_id WHERE r.job_id = $1`,
      [jobId],
    )) as SealedAgentRow[];
    return existing[0];
  }

  /** The job's workspace resource (a start build's); returns its id. */
  async insertResource(manager: EntityManager, jobId: string): Promise<string> {
    const [resource] = (await manager.query(
      `INSERT INTO workspace_resources (job_id, transition, type, name) VALUES ($1, 'start', 'devplane_workspace', 'workspace') RETURNING id`,
      [jobId],
    )) as { id: string }[];
    return resource!.id;
  }

  /** The workspace's newest agent. */
  async latestAgentOfWorkspace(
    manager: EntityManager,
    workspaceId: string,
  ): Promise<SealedAgentRow | undefined> {
    const [previous] = (await manager.query(
      `SELECT id, name, sealed_token FROM workspace_agents WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [workspaceId],
    )) as SealedAgentRow[];
    return previous;
  }

  async moveToResource(manager: EntityManager, agentId: string, resourceId: string): Promise<void> {
    await manager.query('UPDATE workspace_agents SET resource_id = $2, updated_at = now() WHERE id = $1', [
      agentId,
      resourceId,
    ]);
  }

  /** A new agent named `main`. */
  async insert(manager: EntityManager, agent: NewAgent): Promise<void> {
    await manager.query(
      `INSERT INTO workspace_agents (id, resource_id, workspace_id, name, token_hash, sealed_token,
         environment_variables, apps, startup_script, vnc_command, metadata)
       VALUES ($1, $2, $3, 'main', $4, $5, $6, $7, $8, $9, $10)`,
      [
        agent.id,
        agent.resourceId,
        agent.workspaceId,
        agent.tokenHash,
        agent.sealedToken,
        JSON.stringify(agent.environmentVariables),
        JSON.stringify(agent.apps),
        agent.startupScript,
        agent.vncCommand,
        JSON.stringify(agent.metadata ?? []),
      ],
    );
  }

  // ------------------------------------------------------------ what the agent reports

  async recordStartup(
    agentId: string,
    input: { version: string; operatingSystem: string; architecture: string; directory: string },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_agents SET version = $2, operating_system = $3, architecture = $4, directory = $5,
         first_connected_at = COALESCE(first_connected_at, now()), last_connected_at = now(), disconnected_at = NULL,
         updated_at = now() WHERE id = $1`,
      [agentId, input.version, input.operatingSystem, input.architecture, input.directory],
    );
  }

  async recordLifecycle(agentId: string, state: string, ownerId: string | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_agents SET lifecycle_state = $2::varchar,
         started_at = CASE WHEN $2::varchar = 'starting' THEN now() ELSE started_at END,
         ready_at = CASE WHEN $2::varchar IN ('ready', 'start_error', 'start_timeout') THEN now() ELSE ready_at END,
         initialized_owner_id = COALESCE($3::uuid, initialized_owner_id),
         last_connected_at = now(), first_connected_at = COALESCE(first_connected_at, now()), updated_at = now()
       WHERE id = $1`,
      [agentId, state, ownerId],
    );
  }

  /** The agent's metadata items, its row locked until the caller's transaction ends. */
  async lockMetadata(manager: EntityManager, agentId: string): Promise<AgentMetadataItem[] | undefined> {
    const [row] = (await manager.query('SELECT metadata FROM workspace_agents WHERE id = $1 FOR UPDATE', [
      agentId,
    ])) as { metadata: AgentMetadataItem[] }[];
    return row?.metadata;
  }

  async saveMetadata(manager: EntityManager, agentId: string, metadata: AgentMetadataItem[]): Promise<void> {
    await manager.query('UPDATE workspace_agents SET metadata = $2 WHERE id = $1', [
      agentId,
      JSON.stringify(metadata),
    ]);
  }

  /** The agent's metadata items and results (the watch reads them). */
  async metadataOf(agentId: string): Promise<AgentMetadataItem[] | undefined> {
    const [row] = (await this.dataSource.query('SELECT metadata FROM workspace_agents WHERE id = $1', [
      agentId,
    ])) as { metadata: AgentMetadataItem[] }[];
    return row?.metadata;
  }

  /** The agent's apps, its row locked until the caller's transaction ends. */
  async lockApps(
    manager: EntityManager,
    agentId: string,
  ): Promise<{ id: string; health?: string }[] | undefined> {
    const [row] = (await manager.query('SELECT apps FROM workspace_agents WHERE id = $1 FOR UPDATE', [
      agentId,
    ])) as { apps: { id: string; health?: string }[] }[];
    return row?.apps;
  }

  async saveApps(manager: EntityManager, agentId: string, apps: unknown[]): Promise<void> {
    await manager.query('UPDATE workspace_agents SET apps = $2, updated_at = now() WHERE id = $1', [
      agentId,
      JSON.stringify(apps),
    ]);
  }

  async recordConnected(agentId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_agents SET last_connected_at = now(), first_connected_at = COALESCE(first_connected_at, now()),
             disconnected_at = NULL WHERE id = $1`,
      [agentId],
    );
  }

  async recordDisconnected(agentId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_agents SET disconnected_at = now(), updated_at = now() WHERE id = $1`,
      [agentId],
    );
  }

  /** Opens a connection log entry (idempotent by the agent's connection id). */
  async openConnectionLog(agentId: string, input: ConnectionOpened): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO connection_logs (connect_time, organization_id, workspace_owner_id, workspace_id, workspace_name, agent_id,
           agent_name, type, ip, connection_id, slug_or_port, user_agent, user_id)
         SELECT $2, w.organization_id, w.owner_id, w.id, w.name, a.id, a.name, $3, $4, $5, $6, $7, $8
           FROM workspace_agents a JOIN workspaces w ON w.id = a.workspace_id WHERE a.id = $1
         ON CONFLICT (agent_id, connection_id) DO NOTHING`,
      [
        agentId,
        input.time,
        input.type,
        input.ip,
        input.connectionId,
        input.slugOrPort,
        input.userAgent,
        input.userId ?? null,
      ],
    );
  }

  /** Closes a connection log entry; false when the agent has none with this connection id. */
  async closeConnectionLog(
    agentId: string,
    connectionId: string,
    input: { time: Date; reason: string | null; code: number | null },
  ): Promise<boolean> {
    const updated = resultRows(
      await this.dataSource.query(
        `UPDATE connection_logs SET disconnect_time = $3, disconnect_reason = $4, code = $5
          WHERE agent_id = $1 AND connection_id = $2 RETURNING id`,
        [agentId, connectionId, input.time, input.reason, input.code],
      ),
    );
    return updated.length > 0;
  }
}

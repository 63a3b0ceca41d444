import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';
import type { AgentCallResult, AgentTool } from '../../../platform/ports/workspace-agent-calls';

/** A call waiting for its agent, as the agent takes it. */
export interface TakenCall {
  id: string;
  tool: AgentTool;
  arguments: Record<string, unknown>;
}

/** The SQL of calls into workspaces through their agents (`workspace_agent_calls`); taking is `FOR UPDATE SKIP LOCKED`. */
@Injectable()
export class AgentCallsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A pending call for the agent; returns its id. */
  async insert(agentId: string, tool: AgentTool, args: Record<string, unknown>): Promise<string> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO workspace_agent_calls (agent_id, tool, arguments) VALUES ($1, $2, $3) RETURNING id`,
      [agentId, tool, JSON.stringify(args)],
    )) as { id: string }[];
    return row!.id;
  }

  async state(callId: string): Promise<{ status: string; result: AgentCallResult | null } | undefined> {
    const [current] = (await this.dataSource.query(
      'SELECT status, result FROM workspace_agent_calls WHERE id = $1',
      [callId],
    )) as { status: string; result: AgentCallResult | null }[];
    return current;
  }

  /** A call nobody answered in time (unless it is done). */
  async expire(callId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_agent_calls SET status = 'expired' WHERE id = $1 AND status <> 'done'`,
      [callId],
    );
  }

  /** pending → taken for up to 20 of the agent's calls, oldest first. */
  async takePending(agentId: string): Promise<TakenCall[]> {
    return resultRows<TakenCall>(
      await this.dataSource.query(
        `UPDATE workspace_agent_calls SET status = 'taken'
              WHERE id IN (SELECT id FROM workspace_agent_calls WHERE agent_id = $1 AND status = 'pending'
                            ORDER BY created_at LIMIT 20 FOR UPDATE SKIP LOCKED)
              RETURNING id, tool, arguments`,
        [agentId],
      ),
    );
  }

  /** taken → done with the agent's result; false when the call is not taken by this agent. */
  async markDone(callId: string, agentId: string, result: AgentCallResult): Promise<boolean> {
    const updated = resultRows(
      await this.dataSource.query(
        `UPDATE workspace_agent_calls SET status = 'done', result = $3, completed_at = now()
          WHERE id = $1 AND agent_id = $2 AND status = 'taken' RETURNING id`,
        [callId, agentId, JSON.stringify(result)],
      ),
    );
    return updated.length > 0;
  }
}

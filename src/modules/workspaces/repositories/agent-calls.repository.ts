import { Injectable } from '@nestjs/common';
import { DataSource, Not } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';
import { WorkspaceAgentCall } from '../entities/workspace-agent-call.entity';
import type { AgentCallResult, AgentTool } from '../../../platform/ports/workspace-agent-calls';

/** A call waiting for its agent, as the agent takes it. */
export interface TakenCall {
  id: string;
  tool: AgentTool;
  arguments: Record<string, unknown>;
}

/** Calls into workspaces through their agents (`WorkspaceAgentCall`); taking is `FOR UPDATE SKIP LOCKED` (raw SQL). */
@Injectable()
export class AgentCallsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get calls() {
    return this.dataSource.getRepository(WorkspaceAgentCall);
  }

  /** A pending call for the agent; returns its id. */
  async insert(agentId: string, tool: AgentTool, args: Record<string, unknown>): Promise<string> {
    // Raw: TypeORM's insert typing does not take a jsonb column of `Record<string, unknown>`.
    const [row] = (await this.dataSource.query(
      `INSERT INTO workspace_agent_calls (agent_id, tool, arguments) VALUES ($1, $2, $3) RETURNING id`,
      [agentId, tool, JSON.stringify(args)],
    )) as { id: string }[];
    return row!.id;
  }

  async state(callId: string): Promise<Pick<WorkspaceAgentCall, 'status' | 'result'> | undefined> {
    const current = await this.calls.findOne({
      select: { status: true, result: true },
      where: { id: callId },
    });
    return current ?? undefined;
  }

  /** A call nobody answered in time (unless it is done). */
  async expire(callId: string): Promise<void> {
    await this.calls.update({ id: callId, status: Not('done') }, { status: 'expired' });
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

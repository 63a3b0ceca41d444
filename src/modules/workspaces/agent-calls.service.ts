import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import { ConflictError, NotFoundError, UnavailableError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import {
  type AgentCallResult,
  type AgentTool,
  WorkspaceAgentCalls,
} from '../../platform/ports/workspace-agent-calls';
import type { WorkspaceAgentIdentity } from '../../api/access/principal-ports';

import { agentStatus } from './coder-workspace.presenter';
import { AgentCallsRepository } from './repositories/agent-calls.repository';
import { WorkspaceAgentsRepository } from './repositories/workspace-agents.repository';
import type { AgentRow } from './workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

const CALLS_TOPIC = 'workspace.agent_calls:';
const DONE_TOPIC = 'workspace.agent_call_done:';

/** A desktop stream this instance waits for: the agent's WebSocket dialled back for `session`. */
interface PendingDesktop {
  agentId: string;
  arrived: (stream: Duplex) => void;
}

export interface PendingCall {
  id: string;
  tool: AgentTool;
  arguments: Record<string, unknown>;
}

/**
 * Calls into a workspace through its agent (the WorkspaceAgentCalls port): rows of
 * `workspace_agent_calls`; the agent long-polls `GET /workspaceagents/me/calls` on any instance (woken
 * over the ClusterBus), takes them with `FOR UPDATE SKIP LOCKED`, and posts each result; the caller
 * waits for `workspace.agent_call_done:<id>` with a database poll as the fallback.
 */
@Injectable()
export class AgentCallsService extends WorkspaceAgentCalls implements OnModuleDestroy {
  private readonly waiting = new Set<() => void>();
  private readonly desktops = new Map<string, PendingDesktop>();
  private closed = false;

  constructor(
    private readonly calls: AgentCallsRepository,
    private readonly agents: WorkspaceAgentsRepository,
    private readonly cluster: ClusterBus,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {
    super();
  }

  onModuleDestroy(): void {
    this.closed = true;
    for (const wake of this.waiting) wake();
  }

  async agentState(workspaceId: string): Promise<string | null> {
    const agent = await this.currentAgent(workspaceId);
    return agent ? agentStatus(agent, this.config.agentDisconnectMs) : null;
  }

  private currentAgent(workspaceId: string): Promise<AgentRow | undefined> {
    return this.agents.currentAgentOfWorkspace(workspaceId);
  }

  async call(
    workspaceId: string,
    tool: AgentTool,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<AgentCallResult> {
    const agent = await this.currentAgent(workspaceId);
    if (!agent) throw new NotFoundError('No eligible agent found for chat workspace.');
    return this.callAgent(agent, tool, args, timeoutMs);
  }

  /** `call` for an agent already looked up (also the stream opener's way in, agent-streams.service.ts). */
  async callAgent(
    agent: AgentRow,
    tool: AgentTool,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<AgentCallResult> {
    const status = agentStatus(agent, this.config.agentDisconnectMs);
    if (status !== 'connected') throw new UnavailableError(`Agent state is "${status}", must be connected.`);
    const id = await this.calls.insert(agent.id, tool, args);
    let done: (() => void) | undefined;
    const unsubscribe = this.cluster.subscribe(DONE_TOPIC + id, () => done?.());
    try {
      await this.cluster.publish(CALLS_TOPIC + agent.id, {});
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = await this.calls.state(id);
        if (current?.status === 'done' && current.result) return current.result;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || this.closed) break;
        await new Promise<void>((resolve) => {
          const finish = (): void => {
            clearTimeout(timer);
            this.waiting.delete(finish);
            resolve();
          };
          const timer = setTimeout(finish, Math.min(remaining, 500));
          timer.unref();
          done = finish;
          this.waiting.add(finish);
        });
      }
      await this.calls.expire(id);
      throw new UnavailableError('The workspace agent did not answer in time.');
    } finally {
      unsubscribe();
    }
  }

  async openDesktop(workspaceId: string, timeoutMs: number): Promise<Duplex> {
    const agent = await this.currentAgent(workspaceId);
    if (!agent) throw new NotFoundError('No eligible agent found for chat workspace.');
    const session = randomUUID();
    let arrived: Duplex | undefined;
    let wake: (() => void) | undefined;
    this.desktops.set(session, {
      agentId: agent.id,
      arrived: (stream) => {
        arrived = stream;
        wake?.();
      },
    });
    try {
      // The agent dials back before it answers: its socket is here when the call returns (or soon after).
      const result = await this.callAgent(agent, 'desktop_open', { session }, timeoutMs);
      if (!result.ok)
        throw new UnavailableError(`Failed to connect to the workspace desktop: ${result.output}`);
      if (!arrived)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          timer.unref();
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      if (!arrived)
        throw new UnavailableError(
          'Failed to connect to the workspace desktop: the agent did not reach this server instance.',
        );
      return arrived;
    } catch (error) {
      arrived?.destroy();
      throw error;
    } finally {
      this.desktops.delete(session);
    }
  }

  /** Whether `session` is a desktop stream this instance waits for from this agent (the agent's upgrade precheck). */
  desktopSessionOf(agent: WorkspaceAgentIdentity, session: string): boolean {
    return this.desktops.get(session)?.agentId === agent.agentId;
  }

  /** The agent's dialled-back desktop socket for `session`; false when nobody waits for it any more. */
  desktopArrived(agent: WorkspaceAgentIdentity, session: string, socket: WebSocket): boolean {
    const pending = this.desktops.get(session);
    if (!pending || pending.agentId !== agent.agentId) return false;
    this.desktops.delete(session);
    // A stream at once: the desktop speaks first (RFB's version), before anyone relays it.
    const stream = createWebSocketStream(socket);
    // Until a relay takes it over, an error (the agent went away) only ends it, never the server.
    stream.on('error', () => stream.destroy());
    pending.arrived(stream);
    return true;
  }

  /** The agent's long-poll: pending calls for it, taken at once (none after `waitMs`: an empty list). */
  async take(agent: WorkspaceAgentIdentity, waitMs: number, signal: AbortSignal): Promise<PendingCall[]> {
    let wake: (() => void) | undefined;
    const unsubscribe = this.cluster.subscribe(CALLS_TOPIC + agent.agentId, () => wake?.());
    try {
      const deadline = Date.now() + Math.min(waitMs, 60_000);
      for (;;) {
        if (this.closed) return [];
        const taken: PendingCall[] = await this.calls.takePending(agent.agentId);
        if (taken.length > 0) return taken;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || signal.aborted) return [];
        await new Promise<void>((resolve) => {
          const finish = (): void => {
            clearTimeout(timer);
            signal.removeEventListener('abort', finish);
            this.waiting.delete(finish);
            resolve();
          };
          const timer = setTimeout(finish, Math.min(remaining, 2_000));
          timer.unref();
          wake = finish;
          signal.addEventListener('abort', finish);
          this.waiting.add(finish);
        });
      }
    } finally {
      unsubscribe();
    }
  }

  /** The agent's answer to one of its calls. */
  async complete(agent: WorkspaceAgentIdentity, callId: string, result: AgentCallResult): Promise<void> {
    if (!(await this.calls.markDone(callId, agent.agentId, result)))
      throw new ConflictError('The call is not waiting for this agent.', { code: 'CALL_NOT_TAKEN' });
    await this.cluster.publish(DONE_TOPIC + callId, {});
  }
}

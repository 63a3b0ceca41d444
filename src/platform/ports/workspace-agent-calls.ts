/**
 * Calls into a workspace through its agent (chats run their tools this way): implemented by the
 * workspaces module, absent when it is not loaded. The agent long-polls for calls, runs them in the
 * workspace directory and posts the result; the caller waits on any instance.
 */
import type { Duplex } from 'node:stream';

export type AgentTool =
  | 'read_file'
  | 'write_file'
  | 'list_directory'
  | 'run_command'
  | 'git_scan'
  | 'desktop_open'
  | 'stream_open'
  | 'listening_ports';

export interface AgentCallResult {
  ok: boolean;
  /** The tool's output (file content, listing, command output) or the error text. */
  output: string;
  exitCode?: number;
}

export abstract class WorkspaceAgentCalls {
  /** The state of the workspace's current agent (`connected`, `disconnected`, ...), or null when it has none. */
  abstract agentState(workspaceId: string): Promise<string | null>;
  /** Runs `tool` in the workspace's current agent; rejects when no agent is connected or it does not answer in time. */
  abstract call(
    workspaceId: string,
    tool: AgentTool,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<AgentCallResult>;
  /**
   * A byte stream to the workspace's desktop: the agent starts the template's VNC command when nothing
   * listens on its VNC port yet, connects to it and dials a WebSocket back to this instance; resolves
   * with that socket as a byte stream (binary frames both ways; bytes that arrive before the caller
   * reads are buffered, and the agent is paused while they are). Rejects like `call`, or when the
   * desktop cannot start.
   */
  abstract openDesktop(workspaceId: string, timeoutMs: number): Promise<Duplex>;
}

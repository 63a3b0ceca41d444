import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { UnavailableError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../../platform/events/cluster-bus.service';
import type { WorkspaceAgentIdentity } from '../../api/access/principal-ports';
import { AgentCallsService } from './agent-calls.service';
import type { AgentRow } from './workspace-views';

/**
 * A message stream to a session the agent serves (a reconnecting PTY): frames keep their boundaries
 * and their kind (binary or text) from one end to the other.
 */
export interface AgentStream {
  send(data: Buffer, binary: boolean): void;
  /** Frames that arrived before a handler was set are delivered to it first. */
  onMessage(handler: (data: Buffer, binary: boolean) => void): void;
  onClose(handler: () => void): void;
  close(): void;
  /** The agent's own socket when it reached this instance (byte streams use it directly, with backpressure). */
  socket?: WebSocket;
}

const ARRIVED = 'workspace.agent_stream.arrived:';
const DOWN = 'workspace.agent_stream.down:';
const UP = 'workspace.agent_stream.up:';
/** Raw bytes per bus message: base64 of it and the envelope stay below PostgreSQL's 8000-byte NOTIFY limit. */
const CHUNK = 4096;
/** The waiting instance must acknowledge a relayed arrival within this, else the agent's socket closes. */
const ACK_MS = 10_000;

/** A bus frame: data (`d` base64, `b` binary, `m` more parts of the same frame follow), `a` ack, `c` close. */
interface BusFrame {
  d?: string;
  b?: 1;
  m?: 1;
  a?: 1;
  c?: 1;
}

class FrameQueue {
  private handler: ((data: Buffer, binary: boolean) => void) | undefined;
  private readonly queued: [Buffer, boolean][] = [];
  private closeHandlers: (() => void)[] = [];
  closed = false;

  push(data: Buffer, binary: boolean): void {
    if (this.handler) this.handler(data, binary);
    else this.queued.push([data, binary]);
  }

  setHandler(handler: (data: Buffer, binary: boolean) => void): void {
    this.handler = handler;
    for (const [data, binary] of this.queued.splice(0)) handler(data, binary);
  }

  onClose(handler: () => void): void {
    if (this.closed) handler();
    else this.closeHandlers.push(handler);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    for (const handler of this.closeHandlers.splice(0)) handler();
  }
}

/** The agent's socket reached this instance. */
function localStream(socket: WebSocket): AgentStream {
  const queue = new FrameQueue();
  socket.on('message', (data: Buffer, binary: boolean) => queue.push(data, binary));
  socket.on('close', () => queue.end());
  socket.on('error', () => socket.terminate());
  return {
    socket,
    send: (data, binary) => {
      if (socket.readyState === socket.OPEN) socket.send(data, { binary });
    },
    onMessage: (handler) => queue.setHandler(handler),
    onClose: (handler) => queue.onClose(handler),
    close: () => {
      if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
        socket.close(1000, 'closed');
      queue.end();
    },
  };
}

/** Sends one frame over the bus in parts of CHUNK bytes. */
function publishFrame(cluster: ClusterBus, topic: string, data: Buffer, binary: boolean): void {
  for (let offset = 0; offset < data.length || offset === 0; offset += CHUNK) {
    const part = data.subarray(offset, offset + CHUNK);
    const frame: BusFrame = { d: part.toString('base64') };
    if (binary) frame.b = 1;
    if (offset + CHUNK < data.length) frame.m = 1;
    void cluster.publish(topic, frame).catch(() => undefined);
    if (data.length === 0) break;
  }
}

/** Reassembles frames published by publishFrame. */
function frameReader(deliver: (data: Buffer, binary: boolean) => void): (frame: BusFrame) => void {
  let parts: Buffer[] = [];
  return (frame) => {
    if (frame.d === undefined) return;
    parts.push(Buffer.from(frame.d, 'base64'));
    if (frame.m) return;
    const data = Buffer.concat(parts);
    parts = [];
    deliver(data, frame.b === 1);
  };
}

interface Pending {
  agentId: string;
  arrived: (stream: AgentStream) => void;
}

/**
 * Opens sessions into a workspace through its agent (issue 50): a `stream_open` call (the agents'
 * long-polled call channel) makes the agent dial `GET /api/v2/workspaceagents/me/streams/{session}`
 * with its token. When that socket reaches the instance that asked, it is the stream. When it reaches
 * another instance (several instances behind one URL, PostgreSQL), that instance relays its frames
 * over the ClusterBus (`workspace.agent_stream.down:<session>` / `.up:<session>`, base64 parts below
 * the NOTIFY limit) after announcing the arrival; the asking instance acknowledges it.
 */
@Injectable()
export class AgentStreamsService implements OnModuleDestroy {
  private readonly logger = new Logger(AgentStreamsService.name);
  private readonly pending = new Map<string, Pending>();
  private readonly relays = new Set<WebSocket>();
  /** Agent sockets this instance relayed to another one (tests read it). */
  relayed = 0;

  constructor(
    private readonly calls: AgentCallsService,
    private readonly cluster: ClusterBus,
  ) {}

  onModuleDestroy(): void {
    for (const socket of this.relays) socket.terminate();
  }

  /** Opens a session of `kind` on the agent; resolves once the agent's socket is connected. */
  async open(
    agent: AgentRow,
    kind: string,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<AgentStream> {
    const session = randomUUID();
    let arrived: AgentStream | undefined;
    let wake: (() => void) | undefined;
    const settle = (stream: AgentStream): void => {
      if (arrived) {
        stream.close();
        return;
      }
      arrived = stream;
      wake?.();
    };
    this.pending.set(session, { agentId: agent.id, arrived: settle });
    // Frames relayed from another instance: subscribed before the agent is asked, so none is missed.
    const remote = new FrameQueue();
    const readDown = frameReader((data, binary) => remote.push(data, binary));
    const unsubscribeDown = this.cluster.subscribe(DOWN + session, (payload) => {
      const frame = payload as BusFrame;
      if (frame.c) remote.end();
      else readDown(frame);
    });
    const unsubscribeArrived = this.cluster.subscribe(ARRIVED + session, (payload) => {
      const announced = payload as { agentId?: string };
      if (announced.agentId !== agent.id || !this.pending.has(session)) return;
      void this.cluster.publish(UP + session, { a: 1 } satisfies BusFrame).catch(() => undefined);
      remote.onClose(unsubscribeDown);
      settle({
        send: (data, binary) => publishFrame(this.cluster, UP + session, data, binary),
        onMessage: (handler) => remote.setHandler(handler),
        onClose: (handler) => remote.onClose(handler),
        close: () => {
          if (!remote.closed) void this.cluster.publish(UP + session, { c: 1 }).catch(() => undefined);
          remote.end();
        },
      });
    });
    try {
      const result = await this.calls.callAgent(agent, 'stream_open', { session, kind, ...args }, timeoutMs);
      if (!result.ok)
        throw new UnavailableError(`Failed to open the session in the workspace: ${result.output}`);
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
          'Failed to open the session in the workspace: the agent did not connect back.',
        );
      return arrived;
    } catch (error) {
      (arrived as AgentStream | undefined)?.close();
      unsubscribeDown();
      throw error;
    } finally {
      this.pending.delete(session);
      unsubscribeArrived();
    }
  }

  /** Whether this instance can take the agent's socket for `session` (its own pending one, or a relay). */
  accepts(agent: WorkspaceAgentIdentity, session: string): boolean {
    const pending = this.pending.get(session);
    if (pending) return pending.agentId === agent.agentId;
    return this.cluster.crossInstance;
  }

  /** The agent's socket for `session`: handed to the waiting caller here, or relayed to another instance. */
  arrived(agent: WorkspaceAgentIdentity, session: string, socket: WebSocket): boolean {
    const pending = this.pending.get(session);
    if (pending) {
      if (pending.agentId !== agent.agentId) return false;
      this.pending.delete(session);
      pending.arrived(localStream(socket));
      return true;
    }
    if (!this.cluster.crossInstance) return false;
    this.relay(agent, session, socket);
    return true;
  }

  private relay(agent: WorkspaceAgentIdentity, session: string, socket: WebSocket): void {
    this.relays.add(socket);
    this.relayed++;
    let acknowledged = false;
    const readUp = frameReader((data, binary) => {
      if (socket.readyState === socket.OPEN) socket.send(data, { binary });
    });
    const unsubscribe = this.cluster.subscribe(UP + session, (payload) => {
      const frame = payload as BusFrame;
      if (frame.a) {
        acknowledged = true;
        clearTimeout(unclaimed);
      } else if (frame.c) socket.close(1000, 'closed');
      else readUp(frame);
    });
    const unclaimed = setTimeout(() => {
      if (!acknowledged) socket.close(1011, 'Nobody waits for this session.');
    }, ACK_MS);
    unclaimed.unref();
    socket.on('message', (data: Buffer, binary: boolean) =>
      publishFrame(this.cluster, DOWN + session, data, binary),
    );
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      clearTimeout(unclaimed);
      unsubscribe();
      this.relays.delete(socket);
      void this.cluster.publish(DOWN + session, { c: 1 } satisfies BusFrame).catch(() => undefined);
    });
    this.cluster.publish(ARRIVED + session, { agentId: agent.agentId }).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not announce an agent stream');
      socket.close(1011, 'relay failed');
    });
  }
}

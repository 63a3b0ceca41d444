import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { NotFoundError } from '../../../platform/errors/domain-error';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import type { AnyPrincipal } from '../../../api/access/principal';
import { AgentStreamsService } from '../agent-streams.service';
import { CoderGateway, gatewayAgent } from '../../../api/coder/coder-gateway';

export const AGENT_STREAMS_PATH = '/api/v2/workspaceagents/me/streams/:session';

const AGENT = Symbol('devplane:agent-stream');

/**
 * The agent's side of a session the server opened into the workspace (a reconnecting PTY, issue 50):
 * asked by a `stream_open` call, the agent dials this WebSocket with its token; the socket goes to
 * whoever waits for the session on this instance, or is relayed to the instance that waits
 * (AgentStreamsService). A session nobody here waits for is 404 on an instance without a cluster bus.
 */
@CoderGateway(AGENT_STREAMS_PATH, { principals: ['agent'] })
export class AgentStreamsGateway implements OnGatewayConnection, UpgradePrecheck {
  constructor(private readonly streams: AgentStreamsService) {}

  precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    const principal = gatewayAgent(context);
    const session = upgradePathParams(req).session ?? '';
    if (principal?.kind !== 'agent' || !isUuid(session) || !this.streams.accepts(principal.agent, session))
      return Promise.reject(new NotFoundError('Stream session not found.'));
    (req as unknown as Record<symbol, AnyPrincipal>)[AGENT] = principal;
    return Promise.resolve();
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const principal = (req as unknown as Record<symbol, AnyPrincipal | undefined>)[AGENT];
    const session = upgradePathParams(req).session ?? '';
    if (principal?.kind !== 'agent' || !this.streams.arrived(principal.agent, session, socket))
      socket.close(1011, 'Stream session not found.');
  }
}

import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { NotFoundError } from '../../../platform/errors/domain-error';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import type { AnyPrincipal } from '../../../api/access/principal';
import { AgentCallsService } from '../agent-calls.service';
import { CoderGateway, gatewayAgent } from '../../../api/coder/coder-gateway';

export const AGENT_DESKTOP_PATH = '/api/v2/workspaceagents/me/desktop/:session';

function agentOf(req: IncomingMessage): AnyPrincipal | undefined {
  return (req as unknown as { devplaneAgent?: AnyPrincipal }).devplaneAgent;
}

/**
 * The agent's side of a desktop stream (issue 19.9): asked by a `desktop_open` call, the agent dials
 * this WebSocket with its token and relays the bytes of the workspace's VNC server over it; the
 * socket goes to whoever waits for that session on this instance (AgentCallsService.openDesktop).
 */
@CoderGateway(AGENT_DESKTOP_PATH, { principals: ['agent'] })
export class AgentDesktopGateway implements OnGatewayConnection, UpgradePrecheck {
  constructor(private readonly calls: AgentCallsService) {}

  precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    const principal = gatewayAgent(context);
    const session = upgradePathParams(req).session ?? '';
    if (principal?.kind !== 'agent' || !this.calls.desktopSessionOf(principal.agent, session))
      return Promise.reject(new NotFoundError('Desktop session not found.'));
    (req as unknown as { devplaneAgent?: AnyPrincipal }).devplaneAgent = principal;
    return Promise.resolve();
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const principal = agentOf(req);
    const session = upgradePathParams(req).session ?? '';
    if (principal?.kind !== 'agent' || !this.calls.desktopArrived(principal.agent, session, socket))
      socket.close(1011, 'Desktop session not found.');
  }
}

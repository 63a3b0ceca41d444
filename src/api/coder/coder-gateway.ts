import { applyDecorators, SetMetadata } from '@nestjs/common';
import { WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import { Authenticated, type AuthenticatedOptions } from '../access/access.decorators';
import type { AgentPrincipal, AnyPrincipal, UserPrincipal } from '../access/principal';
import { DIALECT_METADATA } from '../dialect';
import { UnauthenticatedError } from '../../platform/errors/domain-error';
import { upgradedConnection } from '../../platform/realtime/realtime-gateways.service';
import { RefuseUnauthenticatedBeforeUpgrade } from '../../platform/realtime/realtime-ports';
import type { WsConnection } from '../../platform/realtime/ws-connection';

export interface CoderGatewayOptions extends AuthenticatedOptions {
  /**
   * Coder's wire for its own sockets: a missing or bad credential is an HTTP 401 before the upgrade;
   * without it devplane upgrades and closes 4401 (the socket convention of its other realtime routes).
   */
  refuseBeforeUpgrade?: boolean;
}

/**
 * A Coder-dialect WebSocket gateway at `path` (`:name` segments allowed): the gateway, the dialect its
 * refusals are rendered in, who may open it (`@Authenticated` options: token scope, principal kinds)
 * and, with `refuseBeforeUpgrade`, Coder's 401 before the upgrade. One declaration instead of four
 * hand-written decorators per gateway; the upgrade runs the AuthGuard's policies on it like a route.
 */
export function CoderGateway(path: string, options: CoderGatewayOptions): ClassDecorator {
  const { refuseBeforeUpgrade, ...access } = options;
  return applyDecorators(
    WebSocketGateway({ path }),
    SetMetadata(DIALECT_METADATA, 'coder'),
    Authenticated(access),
    ...(refuseBeforeUpgrade ? [RefuseUnauthenticatedBeforeUpgrade()] : []),
  );
}

/**
 * Whether the authorizer's context is a principal (the auth module accepts an upgrade with the
 * principal the guard resolved as its context; the platform keeps it opaque).
 */
export function isPrincipal(context: unknown): context is AnyPrincipal {
  if (typeof context !== 'object' || context === null || !('kind' in context)) return false;
  switch (context.kind) {
    case 'user':
      return 'user' in context && typeof context.user === 'object' && context.user !== null;
    case 'agent':
      return 'agent' in context && typeof context.agent === 'object' && context.agent !== null;
    case 'provisioner':
      return (
        'provisioner' in context && typeof context.provisioner === 'object' && context.provisioner !== null
      );
    default:
      return false;
  }
}

/** The user who opens the socket (a gateway's `precheckUpgrade` context), or undefined. */
export function gatewayUser(context: unknown): UserPrincipal | undefined {
  return isPrincipal(context) && context.kind === 'user' ? context : undefined;
}

/** The user who opens the socket; 401 when there is none (a gateway that admits only users). */
export function requireGatewayUser(context: unknown): UserPrincipal {
  const user = gatewayUser(context);
  if (!user) throw new UnauthenticatedError('missing');
  return user;
}

/** The workspace agent that opens the socket (gateways declared with `principals: ['agent']`), or undefined. */
export function gatewayAgent(context: unknown): AgentPrincipal | undefined {
  return isPrincipal(context) && context.kind === 'agent' ? context : undefined;
}

/** An upgraded socket's connection with the user who holds it (undefined: not upgraded or not a user). */
export function userConnection(
  req: IncomingMessage,
): { connection: WsConnection; principal: UserPrincipal } | undefined {
  const connection = upgradedConnection(req);
  const principal = gatewayUser(connection?.context);
  return connection && principal ? { connection, principal } : undefined;
}

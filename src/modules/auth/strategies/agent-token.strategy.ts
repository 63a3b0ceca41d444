import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport';
import { CredentialVerifier } from '../credential-verifier.service';
import type { AgentPrincipal } from '../../../api/access/principal';
import { NO_GLOBAL_REGISTRY, presentedTo, settle } from './credential-strategy';

/**
 * A workspace agent's token (a uuid) in the `Service-Session-Token` header, as Coder's agents send
 * it. Checked through the WORKSPACE_AGENT_LOOKUP port; without one it is refused like any malformed key.
 */
@Injectable()
export class AgentTokenStrategy extends PassportStrategy(Strategy, 'agent-token') {
  constructor(private readonly verifier: CredentialVerifier) {
    super();
  }

  getPassportInstance(): typeof NO_GLOBAL_REGISTRY {
    return NO_GLOBAL_REGISTRY;
  }

  override authenticate(req: Request): void {
    const presented = presentedTo(req, 'agent-token');
    if (!presented) return this.fail();
    settle(this, this.validate(presented.token ?? ''));
  }

  validate(token: string): Promise<AgentPrincipal> {
    return this.verifier.agentFromToken(token);
  }
}

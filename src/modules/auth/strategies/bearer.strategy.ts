import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { UnauthenticatedError } from '../../../platform/errors/domain-error';
import { parseToken } from '../../identity/api-token-codec';
import { CredentialVerifier } from '../credential-verifier.service';
import type { UserPrincipal } from '../../../api/access/principal';
import {
  authorizationView,
  NO_GLOBAL_REGISTRY,
  presentedTo,
  type StrategyActions,
  realRequest,
} from './credential-strategy';

/**
 * `Authorization: Bearer <key>` through passport-http-bearer. The library sees only the normalised
 * header (authorizationView), so `access_token` in the body or query stays Gitea's query form.
 * Any other Authorization scheme is presented here too, with an empty token: a malformed key (401).
 */
@Injectable()
export class BearerTokenStrategy extends PassportStrategy(BearerStrategy, 'bearer') {
  constructor(private readonly verifier: CredentialVerifier) {
    super({ passReqToCallback: true });
  }

  getPassportInstance(): typeof NO_GLOBAL_REGISTRY {
    return NO_GLOBAL_REGISTRY;
  }

  override authenticate(req: Request): void {
    const actions = this as unknown as StrategyActions;
    const presented = presentedTo(req, 'bearer');
    if (!presented) return actions.fail();
    if (!presented.token) {
      const parsed = parseToken('');
      return actions.error(
        new UnauthenticatedError('malformed', 'invalid username, password or token', {
          detail: 'problem' in parsed ? parsed.problem : undefined,
        }),
      );
    }
    super.authenticate(authorizationView(req, `Bearer ${presented.token}`));
  }

  validate(view: Request, token: string): Promise<UserPrincipal> {
    return this.verifier.userFromToken(token, 'bearer', realRequest(view));
  }
}

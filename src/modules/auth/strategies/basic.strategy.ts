import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { BasicStrategy as HttpBasicStrategy } from 'passport-http';
import { CredentialVerifier } from '../credential-verifier.service';
import type { UserPrincipal } from '../../../api/access/principal';
import {
  authorizationView,
  NO_GLOBAL_REGISTRY,
  presentedTo,
  type StrategyActions,
  realRequest,
  responseOf,
  settle,
} from './credential-strategy';

/**
 * `Authorization: Basic` through passport-http: a password (argon2id, throttled), or a token as
 * the user name (`<key>:` or `<key>:x-oauth-basic`) or as the password. passport-http splits the
 * pair at every colon and skips empty parts; Gitea splits at the first colon and verifies anyway,
 * so those pairs (empty part, colon in the password) go to the same verification directly.
 */
@Injectable()
export class BasicCredentialStrategy extends PassportStrategy(HttpBasicStrategy, 'basic') {
  constructor(private readonly verifier: CredentialVerifier) {
    super({ passReqToCallback: true });
  }

  getPassportInstance(): typeof NO_GLOBAL_REGISTRY {
    return NO_GLOBAL_REGISTRY;
  }

  override authenticate(req: Request): void {
    const actions = this as unknown as StrategyActions;
    const presented = presentedTo(req, 'basic');
    if (!presented) return actions.fail();
    if (presented.source === 'basic_token') {
      settle(actions, this.verifier.userFromToken(presented.token ?? '', 'basic_token', req));
      return;
    }
    const login = presented.login ?? '';
    const password = presented.password ?? '';
    if (login === '' || password === '' || password.includes(':')) {
      settle(actions, this.validate(req, login, password));
      return;
    }
    super.authenticate(
      authorizationView(req, `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`),
    );
  }

  validate(view: Request, login: string, password: string): Promise<UserPrincipal> {
    const req = realRequest(view);
    return this.verifier.userFromPassword(login, password, req, responseOf(req));
  }
}

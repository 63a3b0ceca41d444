import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport';
import { CredentialVerifier } from '../credential-verifier.service';
import type { UserPrincipal } from '../../../api/access/principal';
import { NO_GLOBAL_REGISTRY, presentedTo, settle } from './credential-strategy';

/** Gitea's `Authorization: token <key>`. */
@Injectable()
export class AuthorizationTokenStrategy extends PassportStrategy(Strategy, 'authorization-token') {
  constructor(private readonly verifier: CredentialVerifier) {
    super();
  }

  getPassportInstance(): typeof NO_GLOBAL_REGISTRY {
    return NO_GLOBAL_REGISTRY;
  }

  override authenticate(req: Request): void {
    const presented = presentedTo(req, 'authorization-token');
    if (!presented) return this.fail();
    settle(this, this.validate(req, presented.token ?? ''));
  }

  validate(req: Request, token: string): Promise<UserPrincipal> {
    return this.verifier.userFromToken(token, 'token_header', req);
  }
}

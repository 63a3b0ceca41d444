import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport';
import { CredentialVerifier } from '../credential-verifier.service';
import type { ProvisionerPrincipal } from '../../../api/access/principal';
import { NO_GLOBAL_REGISTRY, presentedTo, settle } from './credential-strategy';

/**
 * A provisioner daemon's key in the `Service-Provisioner-Key` header (Coder's
 * `Coder-Provisioner-Key`), checked through the PROVISIONER_KEY_LOOKUP port. Last in the chain, so
 * any other credential wins; without a lookup registered the header is ignored, as before.
 */
@Injectable()
export class ProvisionerKeyStrategy extends PassportStrategy(Strategy, 'provisioner-key') {
  constructor(private readonly verifier: CredentialVerifier) {
    super();
  }

  getPassportInstance(): typeof NO_GLOBAL_REGISTRY {
    return NO_GLOBAL_REGISTRY;
  }

  override authenticate(req: Request): void {
    const presented = presentedTo(req, 'provisioner-key');
    if (!presented || !this.verifier.provisionerKeysEnabled) return this.fail();
    settle(this, this.validate(presented.token ?? ''));
  }

  validate(key: string): Promise<ProvisionerPrincipal> {
    return this.verifier.provisionerFromKey(key);
  }
}

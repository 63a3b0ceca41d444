import { Injectable } from '@nestjs/common';
import { BadRequestError } from '../../../platform/errors/domain-error';
import type { User } from '../entities/user.entity';
import { AccountsRepository } from '../repositories/accounts.repository';

export interface OidcClaimsView {
  id_token_claims: Record<string, unknown>;
  user_info_claims: Record<string, unknown>;
  merged_claims: Record<string, unknown>;
}

/** The claims stored at each OIDC sign-in (reference D.3): split by origin, and merged with userinfo winning. */
@Injectable()
export class OidcClaimsService {
  constructor(private readonly accounts: AccountsRepository) {}

  async of(user: User): Promise<OidcClaimsView> {
    if (user.loginType !== 'oidc')
      throw new BadRequestError('User is not an OIDC user.', { code: 'NOT_OIDC_USER' });
    const link = await this.accounts.findOidcLinkOf(user.id);
    const idToken = link?.idTokenClaims ?? {};
    const userinfo = link?.userinfoClaims ?? {};
    return {
      id_token_claims: idToken,
      user_info_claims: userinfo,
      merged_claims: { ...idToken, ...userinfo },
    };
  }
}

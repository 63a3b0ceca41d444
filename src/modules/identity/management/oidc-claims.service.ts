import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BadRequestError } from '../../../platform/errors/domain-error';
import { UserOidcLink } from '../entities/user-oidc-link.entity';
import type { User } from '../entities/user.entity';

export interface OidcClaimsView {
  id_token_claims: Record<string, unknown>;
  user_info_claims: Record<string, unknown>;
  merged_claims: Record<string, unknown>;
}

/** The claims stored at each OIDC sign-in (reference D.3): split by origin, and merged with userinfo winning. */
@Injectable()
export class OidcClaimsService {
  constructor(@InjectRepository(UserOidcLink) private readonly links: Repository<UserOidcLink>) {}

  async of(user: User): Promise<OidcClaimsView> {
    if (user.loginType !== 'oidc')
      throw new BadRequestError('User is not an OIDC user.', { code: 'NOT_OIDC_USER' });
    const link = await this.links.findOneBy({ userId: user.id });
    const idToken = link?.idTokenClaims ?? {};
    const userinfo = link?.userinfoClaims ?? {};
    return {
      id_token_claims: idToken,
      user_info_claims: userinfo,
      merged_claims: { ...idToken, ...userinfo },
    };
  }
}

import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError } from '../../../platform/crypto/secret-box';
import { REPOSITORIES_CONFIG, type RepositoriesConfig } from '../repositories.config';

/** What a transfer link allows: one operation on one object of one repository, until `exp` (epoch seconds). */
export interface LfsLinkClaims {
  op: 'download' | 'upload';
  repositoryId: string;
  oid: string;
  /** The user the batch answered (null: anonymous download of a public repository). */
  userId: string | null;
  exp: number;
}

/** The `Authorization` scheme of transfer links: `Authorization: LFS <sealed claims>`. */
export const LFS_LINK_SCHEME = 'LFS';
const CONTEXT = 'lfs-link';

/**
 * Short-lived signed transfer links (Gitea signs a JWT into the action's `Authorization` header): the
 * claims are sealed with the site's secrets key (AES-256-GCM, authenticated), so no instance sharing the
 * key needs to store anything and nobody without the key can forge or widen one.
 */
@Injectable()
export class LfsLinks {
  private readonly box: SecretBox;

  constructor(
    @Inject(REPOSITORIES_CONFIG) private readonly config: RepositoriesConfig,
    @Optional() secrets?: SecretBox,
  ) {
    // Without the secrets module (unit setups), links are valid on this process only.
    this.box = secrets ?? new SecretBox(randomBytes(32));
  }

  get expirySeconds(): number {
    return this.config.lfsLinkExpirySeconds;
  }

  sign(claims: Omit<LfsLinkClaims, 'exp'>, now = Date.now()): { header: string; expiresIn: number } {
    const exp = Math.floor(now / 1000) + this.expirySeconds;
    const sealed = this.box.seal(JSON.stringify({ ...claims, exp }), CONTEXT);
    return { header: `${LFS_LINK_SCHEME} ${sealed}`, expiresIn: this.expirySeconds };
  }

  /** The claims of an `Authorization` value in the link scheme; null when it is not one, throws when it is bad. */
  open(authorization: string | undefined, now = Date.now()): LfsLinkClaims | null {
    const match = /^LFS\s+(\S+)$/i.exec(authorization?.trim() ?? '');
    if (!match) return null;
    let claims: LfsLinkClaims;
    try {
      claims = JSON.parse(this.box.openText(match[1]!, CONTEXT)) as LfsLinkClaims;
    } catch (error) {
      if (error instanceof SecretBoxError || error instanceof SyntaxError) throw new LfsLinkError('invalid');
      throw error;
    }
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) throw new LfsLinkError('expired');
    return claims;
  }
}

export class LfsLinkError extends Error {
  constructor(readonly reason: 'invalid' | 'expired') {
    super(`LFS link ${reason}`);
  }
}

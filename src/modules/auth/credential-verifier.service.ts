import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomInt } from 'node:crypto';
import { RateLimitedError, UnauthenticatedError } from '../../platform/errors/domain-error';
import { EventBus } from '../../platform/events/event-bus.service';
import { PasswordGuessLimiter } from '../../platform/http/password-guess-limiter';
import { parseToken, secretMatches } from '../identity/api-token-codec';
import { ApiTokensService } from '../identity/api-tokens.service';
import { PasswordHasher } from '../identity/password-hasher.service';
import { UsersService } from '../identity/users.service';
import type {
  AgentPrincipal,
  CredentialSource,
  ProvisionerPrincipal,
  UserPrincipal,
} from '../../api/access/principal';
import {
  PROVISIONER_KEY_LOOKUP,
  type ProvisionerKeyLookup,
  WORKSPACE_AGENT_LOOKUP,
  type WorkspaceAgentLookup,
} from '../../api/access/principal-ports';

const INVALID = 'invalid username, password or token';

/**
 * Checks each credential form (the strategies call it): API keys and sessions (one cached
 * primary-key lookup), passwords (argon2id, throttled per address and account), agent tokens and
 * provisioner keys (through the workspaces module's ports), and whether the user may sign in.
 */
@Injectable()
export class CredentialVerifier {
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
    private readonly hasher: PasswordHasher,
    private readonly guesses: PasswordGuessLimiter,
    private readonly events: EventBus,
    @Optional() @Inject(WORKSPACE_AGENT_LOOKUP) private readonly agents?: WorkspaceAgentLookup,
    @Optional() @Inject(PROVISIONER_KEY_LOOKUP) private readonly provisioners?: ProvisionerKeyLookup,
  ) {}

  /** Whether provisioner keys can be checked at all (no implementation registered: the header is ignored). */
  get provisionerKeysEnabled(): boolean {
    return this.provisioners !== undefined;
  }

  /** An API key or session (`<id>-<secret>`), then the user's sign-in checks. */
  async userFromToken(raw: string, source: CredentialSource, req: Request): Promise<UserPrincipal> {
    const principal = await this.tokenPrincipal(raw, source, req.ip ?? '');
    await this.admit(principal);
    return principal;
  }

  private async tokenPrincipal(raw: string, source: CredentialSource, ip: string): Promise<UserPrincipal> {
    const parsed = parseToken(raw);
    if ('problem' in parsed) throw new UnauthenticatedError('malformed', INVALID, { detail: parsed.problem });
    const token = await this.tokens.findWithUser(parsed.id);
    if (!token) throw new UnauthenticatedError('unknown_key', INVALID);
    if (!secretMatches(parsed.secret, token.hashedSecret))
      throw new UnauthenticatedError('bad_secret', INVALID);
    if (token.expiresAt.getTime() <= Date.now()) {
      throw new UnauthenticatedError('expired', INVALID, { detail: token.expiresAt.toISOString() });
    }
    await this.tokens.recordUse(token, ip);
    return { kind: 'user', user: token.user, token, source, scopes: token.scopes };
  }

  /**
   * Basic with a password (Gitea tries the password as a token of that user first). Refused with
   * 429 before hashing once the address or the account has used up its failures; an unknown
   * account is verified against a dummy hash, so it costs the same time as a known one.
   */
  async userFromPassword(
    login: string,
    password: string,
    req: Request,
    res?: Response,
  ): Promise<UserPrincipal> {
    if (!('problem' in parseToken(password))) {
      const principal = await this.tokenPrincipal(password, 'basic_token', '').catch(() => undefined);
      if (principal && [principal.user.lowerName, principal.user.lowerEmail].includes(login.toLowerCase())) {
        await this.admit(principal);
        return principal;
      }
    }
    const address = req.ip ?? '';
    const user = login === '' ? null : await this.users.findByLogin(login);
    const account = PasswordGuessLimiter.accountKey(user?.id, login);
    const wait = this.guesses.retryAfter(address, account);
    if (wait > 0) {
      res?.setHeader('Retry-After', String(wait));
      throw new RateLimitedError(this.guesses.message, { code: 'PASSWORD_GUESSES' });
    }
    const matches = user?.passwordHash
      ? await this.users.verifyPassword(user, password)
      : (await this.hasher.verify(await this.dummy(), password), false);
    if (!user || !matches) {
      await this.guesses.recordFailure(address, account);
      throw new UnauthenticatedError('bad_password', INVALID);
    }
    const principal: UserPrincipal = {
      kind: 'user',
      user,
      token: null,
      source: 'basic_password',
      scopes: ['all'],
    };
    await this.admit(principal);
    return principal;
  }

  /** A workspace agent token; refused as a malformed API key while no agent lookup is registered. */
  async agentFromToken(raw: string): Promise<AgentPrincipal> {
    if (!this.agents) {
      const parsed = parseToken(raw);
      throw new UnauthenticatedError('malformed', INVALID, {
        detail: 'problem' in parsed ? parsed.problem : undefined,
      });
    }
    const agent = await this.agents.findByToken(raw);
    if (!agent) throw new UnauthenticatedError('unknown_key', INVALID);
    return { kind: 'agent', agent, source: 'agent_token' };
  }

  async provisionerFromKey(raw: string): Promise<ProvisionerPrincipal> {
    const provisioner = this.provisioners ? await this.provisioners.findByKey(raw) : null;
    if (!provisioner) throw new UnauthenticatedError('unknown_key', INVALID);
    return { kind: 'provisioner', provisioner, source: 'provisioner_key' };
  }

  /** A hash to verify against when there is no user, so both paths cost one argon2 verify. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hasher.hash(`dummy-${randomInt(1e9)}`);
    return this.dummyHash;
  }

  /** Dormant users are reactivated on use (Coder); inactive and prohibited users are refused. */
  private async admit(principal: UserPrincipal): Promise<void> {
    const { user } = principal;
    if (user.status === 'dormant') {
      user.status = 'active';
      await this.users.reactivate(user);
      this.events.emit('user.status_changed', {
        userId: user.id,
        from: 'dormant',
        to: 'active',
        actorId: null,
      });
    }
    if (user.status !== 'active') {
      throw new UnauthenticatedError(
        'inactive',
        `User is not active (status = "${user.status}"). Contact an admin to reactivate your account.`,
      );
    }
    if (user.prohibitLogin) {
      throw new UnauthenticatedError(
        'login_prohibited',
        'This account is prohibited from signing in, please contact your site administrator.',
      );
    }
    if ((await this.users.touchLastSeen(user)) && principal.token)
      this.tokens.rememberLastSeen(principal.token.id, user.lastSeenAt!);
  }
}

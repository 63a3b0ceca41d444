import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { MetricsService } from '../../../platform/metrics/metrics.service';
import { randomBytes } from 'node:crypto';
import { type BaseClient, generators, Issuer } from 'openid-client';
import type { EntityManager } from 'typeorm';
import { AuditLog } from '../../../platform/audit/audit-log';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ForbiddenError,
  UnauthenticatedError,
  UnavailableError,
} from '../../../platform/errors/domain-error';
import { ApiTokensService } from '../../identity/api-tokens.service';
import { OidcAccountsService } from '../../identity/oidc-accounts.service';
import { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import { AUTH_CONFIG, type AuthConfig, type OidcConfig } from '../auth.config';
import { AuthRepository } from '../auth.repository';

/**
 * The prefix of a convert-login state string (`POST /users/{user}/convert-login`). Such a state, brought
 * back as `?oidc_merge_state=`, is the OAuth `state` sent to the provider, and the callback knows from
 * the prefix alone that the sign-in converts a password account (Coder's `mergeStateStringPrefix`).
 */
export const MERGE_STATE_PREFIX = 'convert-';

/** What the browser must keep between the redirect to the provider and the callback (HttpOnly cookies). */
export interface OidcPending {
  state: string;
  verifier: string;
  redirect: string;
}

/** The pending sign-in at the callback, and the convert-login cookie (its state string) when present. */
export interface OidcReturn extends Partial<OidcPending> {
  convertState?: string;
}

export interface OidcCallback {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

export interface OidcSignedIn {
  key: string;
  user: User;
  redirect: string;
}

type Claims = Record<string, unknown>;

/** Only same-site paths are followed after sign-in (no open redirect). */
function safeRedirect(value: string | undefined): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.includes('\\') ? value : '/';
}

/** A Coder user name from a claim: `[a-zA-Z0-9]` runs joined by single hyphens, at most 32 characters. */
function usernameFrom(raw: string): string {
  const cleaned = raw
    .replace(/@.*$/, '')
    .replace(/[^a-zA-Z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return cleaned === '' || cleaned === 'new' || cleaned === 'create' ? 'user' : cleaned;
}

/**
 * OIDC sign-in (issue 16 item 3) with `openid-client`: the authorization-code flow with PKCE and
 * state, the user created or linked by verified email, the session cookie, a pending
 * `convert-login` of a password user completed, and the ID-token and userinfo claims stored per user.
 */
@Injectable()
export class OidcSignInService {
  private readonly logger = new Logger(OidcSignInService.name);
  private client?: Promise<BaseClient>;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
    private readonly oidcAccounts: OidcAccountsService,
    private readonly authRows: AuthRepository,
    private readonly transactions: TransactionRunner,
    private readonly metrics: MetricsService,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  get redirectUri(): string {
    return `${this.app.publicUrl}api/v2/users/oidc/callback`;
  }

  private settings(): OidcConfig {
    if (!this.config.oidc)
      throw new BadRequestError('OIDC is not configured.', { code: 'OIDC_NOT_CONFIGURED' });
    return this.config.oidc;
  }

  /** The provider's client, from its discovery document (fetched once; retried after a failure). */
  private async oidcClient(): Promise<BaseClient> {
    const settings = this.settings();
    this.client ??= Issuer.discover(settings.issuerUrl).then(
      (issuer) =>
        new issuer.Client({
          client_id: settings.clientId,
          client_secret: settings.clientSecret,
          redirect_uris: [this.redirectUri],
          response_types: ['code'],
          token_endpoint_auth_method: settings.clientSecret ? 'client_secret_basic' : 'none',
        }),
    );
    try {
      return await this.client;
    } catch (error) {
      this.client = undefined;
      this.logger.warn({ err: error }, 'OIDC discovery failed');
      throw new UnavailableError('The OIDC provider could not be reached.', { code: 'OIDC_UNREACHABLE' });
    }
  }

  /**
   * Step 1: where to send the browser, and what it must bring back. A convert-login's state string
   * (`mergeState`) is the OAuth state itself, as in Coder; otherwise a random one. Only a value with
   * the conversion prefix is taken: a caller-chosen plain state would let a link fix the state of
   * someone else's sign-in, while a forged `convert-` state fails at the callback without the
   * convert-login cookie that holds it.
   */
  async start(query: {
    redirect?: string;
    mergeState?: string;
  }): Promise<{ url: string; pending: OidcPending }> {
    const client = await this.oidcClient();
    const state = query.mergeState?.startsWith(MERGE_STATE_PREFIX)
      ? query.mergeState
      : randomBytes(24).toString('base64url');
    const verifier = generators.codeVerifier();
    const url = client.authorizationUrl({
      scope: this.settings().scopes.join(' '),
      state,
      redirect_uri: this.redirectUri,
      code_challenge: generators.codeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return {
      url,
      pending: {
        state,
        verifier,
        redirect: safeRedirect(query.redirect),
      },
    };
  }

  /** Step 2: the provider sent the browser back (counted in devplane_logins_total). */
  complete(params: OidcCallback, pending: OidcReturn, ipAddress: string): Promise<OidcSignedIn> {
    return this.completeSignIn(params, pending, ipAddress).then(
      (signedIn) => (this.metrics.login('oidc', 'success'), signedIn),
      (error: unknown) => {
        this.metrics.login('oidc', 'failure');
        throw error;
      },
    );
  }

  private async completeSignIn(
    params: OidcCallback,
    pending: OidcReturn,
    ipAddress: string,
  ): Promise<OidcSignedIn> {
    const settings = this.settings();
    if (params.error)
      throw new BadRequestError(`OIDC sign-in failed: ${params.error}`, {
        code: 'OIDC_ERROR',
        detail: params.errorDescription,
      });
    if (!pending.state)
      throw new UnauthenticatedError('bad_password', 'Cookie "oauth_state" must be provided.', {
        code: 'OIDC_STATE_MISSING',
      });
    if (!params.state || params.state !== pending.state)
      throw new UnauthenticatedError('bad_password', 'State mismatched.', { code: 'OIDC_STATE_MISMATCH' });
    const client = await this.oidcClient();
    let idTokenClaims: Claims;
    let userinfoClaims: Claims = {};
    try {
      const tokenSet = await client.callback(
        this.redirectUri,
        { code: params.code, state: params.state, ...(params.iss ? { iss: params.iss } : {}) },
        { state: pending.state, code_verifier: pending.verifier },
      );
      idTokenClaims = { ...tokenSet.claims() };
      if (tokenSet.access_token && client.issuer.metadata.userinfo_endpoint)
        userinfoClaims = { ...(await client.userinfo(tokenSet.access_token)) };
    } catch (error) {
      throw new BadRequestError('Failed exchanging Oauth code.', {
        code: 'OIDC_EXCHANGE',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
    const merged: Claims = { ...idTokenClaims, ...userinfoClaims };
    const subject = String(merged.sub ?? idTokenClaims.sub ?? '');
    const email = typeof merged.email === 'string' ? merged.email.trim() : '';
    if (subject === '')
      throw new BadRequestError('The OIDC provider returned no subject.', { code: 'OIDC_NO_SUB' });
    if (email === '')
      throw new BadRequestError('Your OIDC provider did not return an email address.', {
        code: 'OIDC_NO_EMAIL',
      });
    if (merged.email_verified === false && !settings.ignoreEmailVerified)
      throw new ForbiddenError(
        `Verify the "${email}" email address on your OIDC provider to authenticate!`,
        'permission',
        {
          code: 'OIDC_EMAIL_UNVERIFIED',
        },
      );
    const issuer = client.issuer.metadata.issuer;

    const state = pending.state;
    const result = await this.transactions.run(async (tx) => {
      let user = await this.oidcAccounts.findForSignIn(issuer, subject, email, tx.manager);
      let converted = false;
      if (state.startsWith(MERGE_STATE_PREFIX)) {
        user = await this.convert(user, email, state, pending.convertState, tx.manager);
        converted = true;
      }
      if (user && user.loginType !== 'oidc')
        throw new ForbiddenError(
          `Incorrect login type, attempting to use "oidc" but user is of login type "${user.loginType}"`,
          'permission',
          { code: 'OIDC_LOGIN_TYPE' },
        );
      if (!user) {
        if (!settings.allowSignups)
          throw new ForbiddenError('Signups are not allowed for login type "oidc".', 'permission', {
            code: 'OIDC_NO_SIGNUPS',
          });
        const base = usernameFrom(
          typeof merged.preferred_username === 'string' && merged.preferred_username !== ''
            ? merged.preferred_username
            : email,
        );
        let username = base;
        for (let n = 1; await this.users.nameIsTaken(username, tx.manager); n++)
          username = `${base.slice(0, 32 - String(n).length - 1)}-${n}`;
        user = await this.users.create(
          {
            username,
            email,
            fullName: typeof merged.name === 'string' ? merged.name.slice(0, 128) : '',
            loginType: 'oidc',
            status: 'active',
          },
          tx,
        );
        await this.audit?.record(tx.manager, {
          actorUserId: user.id,
          action: 'register',
          resourceType: 'user',
          resourceId: user.uuid,
          resourceTarget: user.name,
        });
      }
      if (user.status === 'suspended')
        throw new UnauthenticatedError(
          'inactive',
          `User is not active (status = "${user.status}"). Contact an admin to reactivate your account.`,
          { code: 'USER_INACTIVE' },
        );
      if (user.status === 'dormant') {
        await this.oidcAccounts.activate(user.id, tx.manager);
        tx.emit('user.status_changed', { userId: user.id, from: 'dormant', to: 'active', actorId: null });
        user.status = 'active';
      }
      await this.oidcAccounts.saveLink(
        {
          userId: user.id,
          issuer,
          subject,
          idTokenClaims: idTokenClaims as never,
          userinfoClaims: userinfoClaims as never,
        },
        tx.manager,
      );
      const session = await this.tokens.create(
        {
          userId: user.id,
          scopes: ['coder:all'],
          lifetimeSeconds: this.app.sessionDurationSeconds,
          loginType: 'oidc',
          ipAddress,
        },
        tx.manager,
      );
      await this.users.recordLogin(user.id, tx.manager);
      if (converted)
        await this.audit?.record(tx.manager, {
          actorUserId: user.id,
          action: 'create',
          resourceType: 'convert_login',
          resourceId: user.uuid,
          resourceTarget: user.name,
          diff: { login_type: { old: 'password', new: 'oidc' } },
        });
      await this.audit?.record(tx.manager, {
        actorUserId: user.id,
        action: 'login',
        resourceType: 'api_key',
        resourceId: session.token.id,
        resourceTarget: user.name,
        ip: ipAddress,
      });
      return { key: session.key, user };
    });
    return { ...result, redirect: safeRedirect(pending.redirect) };
  }

  /**
   * The conversion of a password account to `oidc` (Coder's `convertUserToOauth`): the provider's account
   * must be the converting user's (found by link or email), the convert-login cookie must hold this
   * state, the stored conversion must be live and match the user and both login types. Any refusal
   * rolls the sign-in back: the user stays a password user.
   */
  private async convert(
    user: User | null,
    email: string,
    state: string,
    convertState: string | undefined,
    manager: EntityManager,
  ): Promise<User> {
    if (!user)
      throw new BadRequestError(
        `The oidc account with the email ${JSON.stringify(email)} does not match the email of the account you are trying to convert. Contact your administrator to resolve this issue.`,
        { code: 'OIDC_MERGE_EMAIL' },
      );
    if (!convertState)
      throw new BadRequestError(
        'Convert to oauth cookie not found. Missing the convert-login cookie that authorizes this action. Please try again.',
        { code: 'OIDC_MERGE_COOKIE' },
      );
    if (convertState !== state)
      throw new ForbiddenError('Request to convert login type failed. State mismatch.', 'permission', {
        code: 'OIDC_MERGE_STATE_MISMATCH',
      });
    const conversion = await this.authRows.findConversion(state, manager);
    if (!conversion || conversion.expiresAt.getTime() < Date.now())
      throw new BadRequestError('The login conversion has expired or is unknown. Start it again.', {
        code: 'OIDC_MERGE_STATE',
      });
    if (
      user.id !== conversion.userId ||
      user.loginType !== conversion.fromLoginType ||
      conversion.toLoginType !== 'oidc'
    )
      throw new ForbiddenError(
        `Request to convert login type from ${user.loginType} to oidc failed`,
        'permission',
        { code: 'OIDC_MERGE_OTHER_USER' },
      );
    await this.authRows.deleteConversions(user.id, manager);
    await this.oidcAccounts.convertToOidc(user.id, manager);
    user.loginType = 'oidc';
    return user;
  }
}

import { Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { CookieOptions, Request, Response } from 'express';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Public } from '../../../api/access/access.decorators';
import { SESSION_COOKIE } from '../credential-resolver.service';
import { CSRF_COOKIE, keptCsrfToken } from '../csrf';
import { OidcCallbackQueryDto } from '../dto/coder-oidc.dto';
import { MERGE_STATE_PREFIX, OidcSignInService } from '../oidc/oidc-sign-in.service';
import { CONVERT_COOKIE } from './coder-auth.controller';

/** Cookies that carry the pending sign-in between the redirect and the callback (Coder's names). */
const STATE_COOKIE = 'oauth_state';
const VERIFIER_COOKIE = 'oauth_pkce_verifier';
const REDIRECT_COOKIE = 'oauth_redirect';
const PENDING_SECONDS = 600;
const ONE_YEAR_MS = 365 * 86_400_000;

/** OIDC sign-in (`/api/v2/users/oidc/callback`): starts the flow without `code`, completes it with one. */
@CoderController('users/oidc')
export class CoderOidcController {
  constructor(private readonly oidc: OidcSignInService) {}

  private cookieOptions(maxAgeMs: number, httpOnly = true): CookieOptions {
    return {
      path: '/',
      httpOnly,
      sameSite: 'lax',
      secure: this.oidc.redirectUri.startsWith('https:'),
      maxAge: maxAgeMs,
    };
  }

  @Get('callback')
  @Public()
  @ApiOperation({
    summary:
      'OIDC sign-in: without `code` redirects to the provider (state + PKCE); with `code` signs in, sets the session cookie and redirects',
  })
  @ApiQuery({
    name: 'redirect',
    required: false,
    description: 'a path on this site to land on after sign-in',
  })
  @ApiQuery({
    name: 'oidc_merge_state',
    required: false,
    description:
      "a convert-login's `state_string`: sent to the provider as the OAuth `state`; the callback then converts the password account",
  })
  @ApiResponse({ status: 307, description: 'to the provider, or back to the site once signed in' })
  @ApiResponse({ status: 400, type: CoderResponseDto })
  @ApiResponse({ status: 401, type: CoderResponseDto })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  async callback(
    @Query() query: OidcCallbackQueryDto,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const cookies = (req.cookies ?? {}) as Record<string, string | undefined>;
    if (!query.code && !query.error) {
      // Coder: the convert-login's state string comes back as `oidc_merge_state` and is the OAuth state.
      const { url, pending } = await this.oidc.start({
        redirect: query.redirect,
        mergeState: query.oidc_merge_state,
      });
      const pendingOptions = this.cookieOptions(PENDING_SECONDS * 1000);
      res.cookie(STATE_COOKIE, pending.state, pendingOptions);
      res.cookie(VERIFIER_COOKIE, pending.verifier, pendingOptions);
      res.cookie(REDIRECT_COOKIE, pending.redirect, pendingOptions);
      res.redirect(307, url);
      return;
    }
    // A conversion attempt uses the convert-login cookie up, whether it succeeds or not (as Coder does).
    if (cookies[STATE_COOKIE]?.startsWith(MERGE_STATE_PREFIX)) res.clearCookie(CONVERT_COOKIE, { path: '/' });
    const signedIn = await this.oidc.complete(
      {
        code: query.code,
        state: query.state,
        iss: query.iss,
        error: query.error,
        errorDescription: query.error_description,
      },
      {
        state: cookies[STATE_COOKIE],
        verifier: cookies[VERIFIER_COOKIE],
        redirect: cookies[REDIRECT_COOKIE],
        convertState: cookies[CONVERT_COOKIE],
      },
      req.ip ?? '',
    );
    for (const name of [STATE_COOKIE, VERIFIER_COOKIE, REDIRECT_COOKIE]) res.clearCookie(name, { path: '/' });
    res.cookie(SESSION_COOKIE, signedIn.key, this.cookieOptions(ONE_YEAR_MS));
    res.cookie(CSRF_COOKIE, keptCsrfToken(req), this.cookieOptions(ONE_YEAR_MS, false));
    res.redirect(307, signedIn.redirect);
  }
}

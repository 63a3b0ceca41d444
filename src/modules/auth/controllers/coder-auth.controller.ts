import { Body, Get, HttpCode, Inject, Param, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { BadRequestError } from '../../../platform/errors/domain-error';
import { LoginRateLimit } from '../../../platform/http/rate-limit';
import { LOGIN_TYPES, type LoginType } from '../../identity/entities/user.entity';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import { type AuthcheckCheck, AuthorizationService } from '../authorization.service';
import { SESSION_COOKIE } from '../credential-resolver.service';
import {
  AuthorizationCheckDto,
  AuthorizationRequestDto,
  ChangePasswordWithOneTimePasscodeRequestDto,
  ConvertLoginRequestDto,
  ExternalApiKeyScopesDto,
  LoginWithPasswordRequestDto,
  LoginWithPasswordResponseDto,
  LogoutResponseDto,
  OAuthConversionResponseDto,
  UpdateUserPasswordRequestDto,
  RequestOneTimePasscodeRequestDto,
  ValidateUserPasswordRequestDto,
  ValidateUserPasswordResponseDto,
} from '../dto/coder-auth.dto';
import { OneTimePasscodesService } from '../one-time-passcodes.service';
import { PasswordLoginEnabledGuard } from '../password-login.guard';
import { PasswordStrengthService } from '../password-strength.service';
import type { Principal } from '../../../api/access/principal';
import { EXTERNAL_SCOPES } from '../rbac/rbac-catalogue';
import { CONVERT_STATE_SECONDS, SessionsService } from '../sessions.service';
import { CSRF_COOKIE, keptCsrfToken } from '../csrf';
import { TargetUserResolver } from '../target-user.service';

export const CONVERT_COOKIE = 'service_oauth_convert';
const ONE_YEAR_MS = 365 * 86_400_000;

/**
 * authcheck is introspection: its answers already apply the key's scopes (a `workspace:read` key
 * learns it may read its workspaces and nothing else), so every key may ask (`anyTokenScope`).
 */
const ANY_KEY = { anyTokenScope: true } as const;

/** Coder authentication routes (spec 2 table A; reference A, B). */
@CoderController('')
@ApiExtraModels(AuthorizationCheckDto)
export class CoderAuthController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly authz: AuthorizationService,
    private readonly sessions: SessionsService,
    private readonly passcodes: OneTimePasscodesService,
    private readonly strength: PasswordStrengthService,
    private readonly targets: TargetUserResolver,
  ) {}

  private get secureCookies(): boolean {
    return this.config.publicUrl.startsWith('https:');
  }

  @Get('auth/scopes')
  @Public()
  @ApiOperation({ summary: 'List the public API key scopes' })
  @ApiOkResponse({ type: ExternalApiKeyScopesDto })
  scopes(): ExternalApiKeyScopesDto {
    return { external: [...EXTERNAL_SCOPES] };
  }

  @Post('authcheck')
  @HttpCode(200)
  @Authenticated(ANY_KEY)
  @ApiOperation({ summary: 'Check authorization of the caller for a set of objects and actions' })
  @ApiBody({ type: AuthorizationRequestDto })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { type: 'boolean' } } })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  async authcheck(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AuthorizationRequestDto,
  ): Promise<Record<string, boolean>> {
    // Go zero values for what the JSON left out (a null check is a zero AuthorizationCheck).
    const parsed: [string, AuthcheckCheck][] = [
      ...(body.checks ?? new Map<string, AuthorizationCheckDto | null>()),
    ].map(([key, check]) => {
      const object = check?.object;
      return [
        key,
        {
          action: check?.action ?? '',
          object: {
            resource_type: object?.resource_type ?? '',
            owner_id: object?.owner_id ?? '',
            organization_id: object?.organization_id ?? '',
            resource_id: object?.resource_id ?? '',
            any_org: object?.any_org ?? false,
          },
        },
      ];
    });
    return this.authz.authcheck(principal, parsed);
  }

  @Post('users/login')
  @Public()
  @LoginRateLimit()
  @ApiOperation({ summary: 'Log in with email and password' })
  @ApiBody({ type: LoginWithPasswordRequestDto })
  @ApiCreatedResponse({ type: LoginWithPasswordResponseDto })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  @ApiTooManyRequestsResponse({ type: CoderResponseDto })
  async login(
    @Body() body: LoginWithPasswordRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<LoginWithPasswordResponseDto> {
    const { key } = await this.sessions.login(body.email, body.password, req.ip ?? '');
    res.cookie(SESSION_COOKIE, key, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookies,
      maxAge: ONE_YEAR_MS,
    });
    // Readable by the page on purpose: it echoes it in X-CSRF-Token on cookie-authenticated writes.
    // The page's own token (set with the HTML, rendered in its meta) is kept: a new one would
    // invalidate the meta token of the page that is signing in.
    res.cookie(CSRF_COOKIE, keptCsrfToken(req), {
      path: '/',
      httpOnly: false,
      sameSite: 'lax',
      secure: this.secureCookies,
      maxAge: ONE_YEAR_MS,
    });
    return { session_token: key };
  }

  @Post('users/logout')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'api_key', action: 'delete' } })
  @ApiOperation({ summary: 'Log out: delete the session and clear the cookie' })
  @ApiOkResponse({ type: LogoutResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) res: Response,
  ): Promise<LogoutResponseDto> {
    await this.sessions.logout(principal);
    res.cookie(SESSION_COOKIE, '', {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookies,
      maxAge: 0,
    });
    return { message: 'Logged out!' };
  }

  @Post('users/otp/request')
  @UseGuards(PasswordLoginEnabledGuard)
  @HttpCode(204)
  @Public()
  @LoginRateLimit()
  @ApiOperation({ summary: 'Request a one-time passcode by email (always 204)' })
  @ApiBody({ type: RequestOneTimePasscodeRequestDto })
  @ApiNoContentResponse({ description: 'Always, whether or not the account exists' })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  requestPasscode(@Body() body: RequestOneTimePasscodeRequestDto): void {
    // 204 at once for every address: the work goes on after the answer (no timing oracle).
    this.passcodes.requestDetached(body.email);
  }

  @Post('users/otp/change-password')
  @UseGuards(PasswordLoginEnabledGuard)
  @HttpCode(204)
  @Public()
  @LoginRateLimit()
  @ApiOperation({ summary: 'Change the password with a one-time passcode' })
  @ApiBody({ type: ChangePasswordWithOneTimePasscodeRequestDto })
  @ApiNoContentResponse({ description: 'Password changed; every session and token of the user deleted' })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  async changePasswordWithPasscode(@Body() body: ChangePasswordWithOneTimePasscodeRequestDto): Promise<void> {
    await this.passcodes.changePassword(body.email, body.one_time_passcode, body.password);
  }

  @Post('users/validate-password')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @LoginRateLimit()
  @ApiOperation({ summary: 'Check a password against the password rule' })
  @ApiBody({ type: ValidateUserPasswordRequestDto })
  @ApiOkResponse({ type: ValidateUserPasswordResponseDto })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  validatePassword(@Body() body: ValidateUserPasswordRequestDto): ValidateUserPasswordResponseDto {
    return this.strength.check(body.password);
  }

  @Post('users/:user/convert-login')
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({ summary: 'Start converting a password account to GitHub or OIDC login' })
  @ApiParam({ name: 'user', description: 'user id (uuid), username, or `me`' })
  @ApiBody({ type: ConvertLoginRequestDto })
  @ApiCreatedResponse({ type: OAuthConversionResponseDto })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 404, type: CoderResponseDto })
  async convertLogin(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: ConvertLoginRequestDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OAuthConversionResponseDto> {
    const target = await this.targets.resolve(ref, principal);
    const { to_type: toType, password } = body;
    if (toType === 'none' || toType === 'password' || toType === 'token') {
      throw new BadRequestError(`Cannot convert to login type "${toType}".`);
    }
    if (!(LOGIN_TYPES as readonly string[]).includes(toType))
      throw new BadRequestError(`Unknown login type "${toType}".`);
    const result = await this.sessions.startConversion(target, toType as LoginType, password);
    res.cookie(CONVERT_COOKIE, result.state, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookies,
      expires: result.expiresAt,
      maxAge: CONVERT_STATE_SECONDS * 1000,
    });
    res.status(201);
    return {
      state_string: result.state,
      expires_at: result.expiresAt.toISOString(),
      to_type: result.toType,
      user_id: result.user.uuid,
    };
  }

  @Put('users/:user/password')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @LoginRateLimit()
  @ApiOperation({
    summary: "Change a user's password (the password rule applies; every key of the user is deleted)",
  })
  @ApiParam({ name: 'user', description: 'user id (uuid), username, or `me`' })
  @ApiBody({ type: UpdateUserPasswordRequestDto })
  @ApiNoContentResponse({ description: 'Password changed' })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 404, type: CoderResponseDto })
  async updatePassword(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateUserPasswordRequestDto,
  ): Promise<void> {
    const target = await this.targets.resolve(ref, principal);
    await this.sessions.changePassword(principal, target, body.old_password ?? '', body.password);
  }
}

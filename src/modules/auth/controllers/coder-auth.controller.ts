import { Body, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
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
import { Authenticated, CurrentPrincipal, Public } from '../access.decorators';
import { type AuthcheckCheck, AuthorizationService } from '../authorization.service';
import { boolField, bodyObject, CoderValidation, objectField, stringField } from '../coder-body';
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
import { PasswordStrengthService } from '../password-strength.service';
import type { Principal } from '../principal';
import { EXTERNAL_SCOPES } from '../rbac/rbac-catalogue';
import { CONVERT_STATE_SECONDS, SessionsService } from '../sessions.service';
import { CSRF_COOKIE, newCsrfToken } from '../csrf';
import { TargetUserResolver } from '../target-user.service';

export const CONVERT_COOKIE = 'service_oauth_convert';
const ONE_YEAR_MS = 365 * 86_400_000;

/**
 * authcheck is introspection: its answers already apply the key's scopes (a `workspace:read` key
 * learns it may read its workspaces and nothing else), so every key may ask. Declared as an empty
 * Gitea category list, which the guard treats as "no category required".
 */
const ANY_KEY = { scopes: [] as string[] };

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
  async authcheck(@CurrentPrincipal() principal: Principal, @Body() raw: unknown): Promise<Record<string, boolean>> {
    const body = bodyObject(raw, 'AuthorizationRequest');
    const checks = objectField(body, 'checks', 'AuthorizationRequest') ?? {};
    const parsed: [string, AuthcheckCheck][] = Object.entries(checks).map(([key, value]) => {
      const check = bodyObject(value, 'AuthorizationCheck');
      const object = objectField(check, 'object', 'AuthorizationCheck') ?? {};
      return [
        key,
        {
          action: stringField(check, 'action', 'AuthorizationCheck'),
          object: {
            resource_type: stringField(object, 'resource_type', 'AuthorizationObject'),
            owner_id: stringField(object, 'owner_id', 'AuthorizationObject'),
            organization_id: stringField(object, 'organization_id', 'AuthorizationObject'),
            resource_id: stringField(object, 'resource_id', 'AuthorizationObject'),
            any_org: boolField(object, 'any_org', 'AuthorizationObject'),
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
    @Body() raw: unknown,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<LoginWithPasswordResponseDto> {
    const body = bodyObject(raw, 'LoginWithPasswordRequest');
    const email = stringField(body, 'email', 'LoginWithPasswordRequest');
    const password = stringField(body, 'password', 'LoginWithPasswordRequest');
    new CoderValidation().email('email', email).required('password', password).throwIfAny();
    const { key } = await this.sessions.login(email, password, req.ip ?? '');
    res.cookie(SESSION_COOKIE, key, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookies,
      maxAge: ONE_YEAR_MS,
    });
    // Readable by the page on purpose: it echoes it in X-CSRF-Token on cookie-authenticated writes.
    res.cookie(CSRF_COOKIE, newCsrfToken(), { path: '/', httpOnly: false, sameSite: 'lax', secure: this.secureCookies, maxAge: ONE_YEAR_MS });
    return { session_token: key };
  }

  @Post('users/logout')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'api_key', action: 'delete' } })
  @ApiOperation({ summary: 'Log out: delete the session and clear the cookie' })
  @ApiOkResponse({ type: LogoutResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  async logout(@CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) res: Response): Promise<LogoutResponseDto> {
    await this.sessions.logout(principal);
    res.cookie(SESSION_COOKIE, '', { path: '/', httpOnly: true, sameSite: 'lax', secure: this.secureCookies, maxAge: 0 });
    return { message: 'Logged out!' };
  }

  @Post('users/otp/request')
  @HttpCode(204)
  @Public()
  @LoginRateLimit()
  @ApiOperation({ summary: 'Request a one-time passcode by email (always 204)' })
  @ApiBody({ type: RequestOneTimePasscodeRequestDto })
  @ApiNoContentResponse({ description: 'Always, whether or not the account exists' })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  requestPasscode(@Body() raw: unknown): void {
    this.sessions.assertPasswordLoginEnabled();
    const body = bodyObject(raw, 'RequestOneTimePasscodeRequest');
    const email = stringField(body, 'email', 'RequestOneTimePasscodeRequest');
    new CoderValidation().email('email', email).throwIfAny();
    // 204 at once for every address: the work goes on after the answer (no timing oracle).
    this.passcodes.requestDetached(email);
  }

  @Post('users/otp/change-password')
  @HttpCode(204)
  @Public()
  @LoginRateLimit()
  @ApiOperation({ summary: 'Change the password with a one-time passcode' })
  @ApiBody({ type: ChangePasswordWithOneTimePasscodeRequestDto })
  @ApiNoContentResponse({ description: 'Password changed; every session and token of the user deleted' })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  async changePasswordWithPasscode(@Body() raw: unknown): Promise<void> {
    this.sessions.assertPasswordLoginEnabled();
    const struct = 'ChangePasswordWithOneTimePasscodeRequest';
    const body = bodyObject(raw, struct);
    const email = stringField(body, 'email', struct);
    const password = stringField(body, 'password', struct);
    const code = stringField(body, 'one_time_passcode', struct);
    new CoderValidation().email('email', email).required('password', password).required('one_time_passcode', code).throwIfAny();
    await this.passcodes.changePassword(email, code, password);
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
  validatePassword(@Body() raw: unknown): ValidateUserPasswordResponseDto {
    const body = bodyObject(raw, 'ValidateUserPasswordRequest');
    const password = stringField(body, 'password', 'ValidateUserPasswordRequest');
    new CoderValidation().required('password', password).throwIfAny();
    return this.strength.check(password);
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
    @Body() raw: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OAuthConversionResponseDto> {
    const target = await this.targets.resolve(ref, principal);
    const body = bodyObject(raw, 'ConvertLoginRequest');
    const toType = stringField(body, 'to_type', 'ConvertLoginRequest');
    const password = stringField(body, 'password', 'ConvertLoginRequest');
    new CoderValidation().required('to_type', toType).required('password', password).throwIfAny();
    if (toType === 'none' || toType === 'password' || toType === 'token') {
      throw new BadRequestError(`Cannot convert to login type "${toType}".`);
    }
    if (!(LOGIN_TYPES as readonly string[]).includes(toType)) throw new BadRequestError(`Unknown login type "${toType}".`);
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
  @ApiOperation({ summary: "Change a user's password (the password rule applies; every key of the user is deleted)" })
  @ApiParam({ name: 'user', description: 'user id (uuid), username, or `me`' })
  @ApiBody({ type: UpdateUserPasswordRequestDto })
  @ApiNoContentResponse({ description: 'Password changed' })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 404, type: CoderResponseDto })
  async updatePassword(@CurrentPrincipal() principal: Principal, @Param('user') ref: string, @Body() raw: unknown): Promise<void> {
    const target = await this.targets.resolve(ref, principal);
    const body = bodyObject(raw, 'UpdateUserPasswordRequest');
    const oldPassword = stringField(body, 'old_password', 'UpdateUserPasswordRequest');
    const password = stringField(body, 'password', 'UpdateUserPasswordRequest');
    new CoderValidation().required('password', password).throwIfAny();
    await this.sessions.changePassword(principal, target, oldPassword, password);
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { GoStruct, GoType, GoValidate, QueryBool } from '../../../api/coder/coder-dto.decorators';

/**
 * Request and response shapes of the Coder auth routes. Request DTOs are validated by the global
 * ValidationPipe; `@GoStruct`/`@GoType`/`@GoValidate` carry Coder's naming for its texts (src/api/coder).
 */
export class ExternalApiKeyScopesDto {
  @ApiProperty({ type: [String] }) external: string[];
}

@GoStruct('AuthorizationObject')
export class AuthorizationObjectDto {
  @ApiProperty({ description: 'RBAC resource type, e.g. workspace' })
  @GoType('string')
  resource_type?: string;
  @ApiPropertyOptional({ description: 'user uuid, or "me"' }) @GoType('string') owner_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('string') organization_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('string') resource_id?: string;
  @ApiPropertyOptional() @GoType('bool') any_org?: boolean;
}

@GoStruct('AuthorizationCheck')
export class AuthorizationCheckDto {
  @ApiProperty({ type: AuthorizationObjectDto })
  @GoType('codersdk.AuthorizationObject')
  @IsOptional() // null decodes to the zero value (Go); nested validation only for values
  @ValidateNested()
  @Type(() => AuthorizationObjectDto)
  object?: AuthorizationObjectDto;

  @ApiProperty({ example: 'read' }) @GoType('string') action?: string;
}

/** A JSON object of checks as a Map of DTO instances (so each value is validated); other kinds stay as they are for @GoType. */
function checksMap({ value, obj }: { value: unknown; obj: Record<string, unknown> }): unknown {
  // The raw JSON value (class-transformer has already converted it by the property's design type).
  const raw = Object.hasOwn(obj, 'checks') ? obj.checks : value;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  return new Map(
    Object.entries(raw as Record<string, unknown>).map(([key, check]) => [
      key,
      // null decodes to the zero AuthorizationCheck, as in Go.
      check === null
        ? new AuthorizationCheckDto()
        : typeof check === 'object' && !Array.isArray(check)
          ? plainCheck(check)
          : check,
    ]),
  );
}

function plainCheck(check: object): AuthorizationCheckDto {
  const dto = Object.assign(new AuthorizationCheckDto(), check);
  const object: unknown = (check as { object?: unknown }).object;
  if (typeof object === 'object' && object !== null && !Array.isArray(object))
    dto.object = Object.assign(new AuthorizationObjectDto(), object);
  return dto;
}

@GoStruct('AuthorizationRequest')
export class AuthorizationRequestDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/AuthorizationCheckDto' },
  })
  @Transform(checksMap)
  @GoType('map[string]codersdk.AuthorizationCheck')
  @IsOptional() // null decodes to the zero value (Go); nested validation only for values
  @ValidateNested({ each: true })
  checks?: Map<string, AuthorizationCheckDto>;
}

@GoStruct('LoginWithPasswordRequest')
export class LoginWithPasswordRequestDto {
  @ApiProperty({ format: 'email' }) @GoType('string') @GoValidate('required', 'email') email: string;
  @ApiProperty() @GoType('string') @GoValidate('required') password: string;
}

export class LoginWithPasswordResponseDto {
  @ApiProperty() session_token: string;
}

export class LogoutResponseDto {
  @ApiProperty({ example: 'Logged out!' }) message: string;
}

@GoStruct('RequestOneTimePasscodeRequest')
export class RequestOneTimePasscodeRequestDto {
  @ApiProperty({ format: 'email' }) @GoType('string') @GoValidate('required', 'email') email: string;
}

@GoStruct('ChangePasswordWithOneTimePasscodeRequest')
export class ChangePasswordWithOneTimePasscodeRequestDto {
  @ApiProperty({ format: 'email' }) @GoType('string') @GoValidate('required', 'email') email: string;
  @ApiProperty() @GoType('string') @GoValidate('required') password: string;
  @ApiProperty() @GoType('string') @GoValidate('required') one_time_passcode: string;
}

@GoStruct('ValidateUserPasswordRequest')
export class ValidateUserPasswordRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required') password: string;
}

export class ValidateUserPasswordResponseDto {
  @ApiProperty() valid: boolean;
  @ApiProperty() details: string;
}

@GoStruct('ConvertLoginRequest')
export class ConvertLoginRequestDto {
  @ApiProperty({ enum: ['github', 'oidc'] }) @GoType('string') @GoValidate('required') to_type: string;
  @ApiProperty() @GoType('string') @GoValidate('required') password: string;
}

export class OAuthConversionResponseDto {
  @ApiProperty() state_string: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ enum: ['github', 'oidc'] }) to_type: string;
  @ApiProperty({ format: 'uuid' }) user_id: string;
}

@GoStruct('APIAllowListTarget')
export class ApiAllowListTargetDto {
  @ApiProperty({ description: 'RBAC resource type or *' }) @GoType('string') type: string;
  @ApiProperty({ description: 'uuid or *' }) @GoType('string') id: string;
}

@GoStruct('CreateTokenRequest')
export class CreateTokenRequestDto {
  @ApiPropertyOptional() @GoType('string') token_name?: string;
  @ApiPropertyOptional({ type: [String] }) @GoType('[]string') scopes?: string[];
  @ApiPropertyOptional({ deprecated: true }) @GoType('string') scope?: string;
  @ApiPropertyOptional({ description: 'lifetime in nanoseconds (Go duration); 0 = default' })
  @GoType('time.Duration')
  lifetime?: number;
  @ApiPropertyOptional({ type: [ApiAllowListTargetDto] })
  @GoType('[]codersdk.APIAllowListTarget')
  @IsOptional() // null decodes to the zero value (Go); nested validation only for values
  @ValidateNested({ each: true })
  @Type(() => ApiAllowListTargetDto)
  allow_list?: ApiAllowListTargetDto[];
}

/** `GET /users/{user}/keys/tokens` query. */
export class ListTokensQueryDto {
  @ApiPropertyOptional({ type: Boolean }) @QueryBool() include_expired?: boolean;
  @ApiPropertyOptional({ type: Boolean }) @QueryBool() include_all?: boolean;
}

export class GenerateApiKeyResponseDto {
  @ApiProperty() key: string;
}

export class ApiKeyDto {
  @ApiProperty() id: string;
  @ApiProperty({ format: 'uuid' }) user_id: string;
  @ApiProperty({ format: 'date-time' }) last_used: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ enum: ['password', 'github', 'oidc', 'token', 'none'] }) login_type: string;
  @ApiProperty({ enum: ['all', 'application_connect', ''] }) scope: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty() token_name: string;
  @ApiProperty() lifetime_seconds: number;
  @ApiProperty({ type: [ApiAllowListTargetDto] }) allow_list: ApiAllowListTargetDto[];
}

export class ApiKeyWithOwnerDto extends ApiKeyDto {
  @ApiProperty() username: string;
}

export class TokenConfigDto {
  @ApiProperty({ description: 'nanoseconds' }) max_token_lifetime: number;
}

@GoStruct('UpdateUserPasswordRequest')
export class UpdateUserPasswordRequestDto {
  @ApiPropertyOptional({ description: 'required when changing your own password' })
  @GoType('string')
  old_password?: string;
  @ApiProperty() @GoType('string') @GoValidate('required') password: string;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Documentation shapes of the Coder auth routes; bodies are decoded by hand (coder-body.ts) for Coder's exact texts. */
export class ExternalApiKeyScopesDto {
  @ApiProperty({ type: [String] }) external: string[];
}

export class AuthorizationObjectDto {
  @ApiProperty({ description: 'RBAC resource type, e.g. workspace' }) resource_type: string;
  @ApiPropertyOptional({ description: 'user uuid, or "me"' }) owner_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) organization_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) resource_id?: string;
  @ApiPropertyOptional() any_org?: boolean;
}

export class AuthorizationCheckDto {
  @ApiProperty({ type: AuthorizationObjectDto }) object: AuthorizationObjectDto;
  @ApiProperty({ example: 'read' }) action: string;
}

export class AuthorizationRequestDto {
  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/AuthorizationCheckDto' } })
  checks: Record<string, AuthorizationCheckDto>;
}

export class LoginWithPasswordRequestDto {
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() password: string;
}

export class LoginWithPasswordResponseDto {
  @ApiProperty() session_token: string;
}

export class LogoutResponseDto {
  @ApiProperty({ example: 'Logged out!' }) message: string;
}

export class RequestOneTimePasscodeRequestDto {
  @ApiProperty({ format: 'email' }) email: string;
}

export class ChangePasswordWithOneTimePasscodeRequestDto {
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() one_time_passcode: string;
  @ApiProperty() password: string;
}

export class ValidateUserPasswordRequestDto {
  @ApiProperty() password: string;
}

export class ValidateUserPasswordResponseDto {
  @ApiProperty() valid: boolean;
  @ApiProperty() details: string;
}

export class ConvertLoginRequestDto {
  @ApiProperty({ enum: ['github', 'oidc'] }) to_type: string;
  @ApiProperty() password: string;
}

export class OAuthConversionResponseDto {
  @ApiProperty() state_string: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ enum: ['github', 'oidc'] }) to_type: string;
  @ApiProperty({ format: 'uuid' }) user_id: string;
}

export class ApiAllowListTargetDto {
  @ApiProperty({ description: 'RBAC resource type or *' }) type: string;
  @ApiProperty({ description: 'uuid or *' }) id: string;
}

export class CreateTokenRequestDto {
  @ApiPropertyOptional() token_name?: string;
  @ApiPropertyOptional({ type: [String] }) scopes?: string[];
  @ApiPropertyOptional({ deprecated: true }) scope?: string;
  @ApiPropertyOptional({ description: 'lifetime in nanoseconds (Go duration); 0 = default' }) lifetime?: number;
  @ApiPropertyOptional({ type: [ApiAllowListTargetDto] }) allow_list?: ApiAllowListTargetDto[];
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

export class UpdateUserPasswordRequestDto {
  @ApiPropertyOptional({ description: 'required when changing your own password' }) old_password?: string;
  @ApiProperty() password: string;
}

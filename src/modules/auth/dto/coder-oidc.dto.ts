import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** The query of `GET /api/v2/users/oidc/callback`: the provider's answer, or the start of a sign-in. */
export class OidcCallbackQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() code?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() state?: string;
  @ApiPropertyOptional({ description: 'the issuer (RFC 9207)' }) @IsOptional() @IsString() iss?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() error?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() error_description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() redirect?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() oidc_merge_state?: string;
}

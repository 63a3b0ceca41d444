import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** Gitea's `CreateAccessTokenOption`. */
export class CreateGiteaAccessTokenDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @ApiPropertyOptional({
    type: [String],
    description: '`all`, or `read:<category>` / `write:<category>`; at least one is required',
    example: ['write:repository', 'read:user'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  scopes?: string[];
}

/** Gitea's `AccessToken`: `sha1` carries the key only in the answer to its creation (empty in lists). */
export class GiteaAccessTokenDto {
  @ApiProperty({ type: 'integer', format: 'int64' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'the key, shown once: empty in lists' }) sha1: string;
  @ApiProperty() token_last_eight: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) last_used_at: string;
}

export class GiteaTokensPageQueryDto {
  @ApiPropertyOptional({ type: 'integer' }) @IsOptional() @IsString() page?: string;
  @ApiPropertyOptional({ type: 'integer' }) @IsOptional() @IsString() limit?: string;
}

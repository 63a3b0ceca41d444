import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsObject, IsOptional, IsString } from 'class-validator';

/**
 * The document `npm publish` (and `npm deprecate`) sends to `PUT /{name}`: the packument-shaped
 * publish body with the tarball base64 in `_attachments`. Nested manifests are kept as sent.
 */
export class NpmPublishDto {
  @ApiPropertyOptional() @IsOptional() @IsString() _id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  'dist-tags'?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'version → manifest (one version per publish)',
  })
  @IsOptional()
  @IsObject()
  versions?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'tarball name → {content_type, data (base64), length}',
  })
  @IsOptional()
  @IsObject()
  _attachments?: Record<string, unknown>;
  @ApiPropertyOptional() @IsOptional() @IsString() readme?: string;
  @ApiPropertyOptional() @Allow() access?: unknown;
  @ApiPropertyOptional() @Allow() _rev?: unknown;
}

/** `GET /-/v1/search`. */
export class NpmSearchQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() text?: string;
  @ApiPropertyOptional({ type: 'integer', default: 20 }) @IsOptional() @IsString() size?: string;
  @ApiPropertyOptional({ type: 'integer', default: 0 }) @IsOptional() @IsString() from?: string;
}

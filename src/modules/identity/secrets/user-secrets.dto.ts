import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { GoStruct, GoType } from '../../../api/coder/coder-dto.decorators';

/** codersdk.CreateUserSecretRequest. The rules (and their texts) are the service's: reference D.1. */
@GoStruct('CreateUserSecretRequest')
export class CreateUserSecretRequestDto {
  @ApiProperty({ description: 'unique per user; no "/", "?", "#", no surrounding whitespace' })
  @GoType('string')
  name?: string;
  @ApiProperty({ description: 'at most 24 KiB, no NUL; never returned' }) @GoType('string') value?: string;
  @ApiPropertyOptional() @GoType('string') description?: string;
  @ApiPropertyOptional({ description: 'POSIX name, not reserved' }) @GoType('string') env_name?: string;
  @ApiPropertyOptional({ description: 'starts with `~/` or `/`' }) @GoType('string') file_path?: string;
  @ApiPropertyOptional({ default: true }) @GoType('bool') enabled?: boolean;
}

/** codersdk.UpdateUserSecretRequest (the name cannot change). */
@GoStruct('UpdateUserSecretRequest')
export class UpdateUserSecretRequestDto {
  @ApiPropertyOptional() @GoType('string') value?: string;
  @ApiPropertyOptional() @GoType('string') description?: string;
  @ApiPropertyOptional() @GoType('string') env_name?: string;
  @ApiPropertyOptional() @GoType('string') file_path?: string;
  @ApiPropertyOptional() @GoType('bool') enabled?: boolean;
}

/** codersdk.UserSecret: the value is never part of it. */
export class CoderUserSecretDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty() env_name: string;
  @ApiProperty() file_path: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** `POST .../secrets/batch`: an import file (decision: dotenv, or JSON / YAML maps and lists). */
@GoStruct('ImportUserSecretsRequest')
export class ImportUserSecretsRequestDto {
  @ApiProperty({ enum: ['env', 'json', 'yaml'] }) @GoType('string') format?: string;
  @ApiProperty({ description: 'the file, at most 1 MiB' }) @GoType('string') content?: string;
}

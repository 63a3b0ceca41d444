import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Gitea's error body (`APIError`): `{message, url}`. */
export class GiteaErrorDto {
  @ApiProperty() message: string;
  @ApiPropertyOptional() url?: string;
}

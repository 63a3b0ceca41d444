import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { GiteaUserDto, presentGiteaUser } from '../identity/presenters/gitea-user.presenter';
import type { User } from '../identity/entities/user.entity';
import type { PublicKey } from './entities/public-key.entity';

/** Gitea's PublicKey. `key_type` and `user` only for the owner and administrators. */
export class GiteaPublicKeyDto {
  @ApiProperty() id: number;
  @ApiProperty() key: string;
  @ApiProperty() url: string;
  @ApiProperty() title: string;
  @ApiProperty() fingerprint: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiPropertyOptional({ format: 'date-time' }) last_used_at?: string;
  @ApiPropertyOptional() key_type?: string;
  @ApiPropertyOptional() read_only?: boolean;
  @ApiPropertyOptional({ type: GiteaUserDto }) user?: GiteaUserDto;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

export function presentPublicKey(
  key: PublicKey,
  viewer: User | undefined,
  publicUrl: string,
): GiteaPublicKeyDto {
  const dto: GiteaPublicKeyDto = {
    id: Number(key.id),
    key: key.content,
    url: `${publicUrl}api/v1/user/keys/${key.id}`,
    title: key.title,
    fingerprint: key.fingerprint,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt ? key.lastUsedAt.toISOString() : ZERO_TIME,
  };
  if (viewer && (viewer.isAdmin || viewer.id === key.ownerId)) {
    dto.key_type = 'user';
    dto.user = presentGiteaUser(key.owner, viewer, publicUrl);
  }
  return dto;
}

import { ApiProperty } from '@nestjs/swagger';
import type { User } from '../entities/user.entity';

/** Gitea's User (structs.User), plus the `username` duplicate of `login` Gitea adds when marshalling. */
export class GiteaUserDto {
  @ApiProperty() id: number;
  @ApiProperty() login: string;
  @ApiProperty() login_name: string;
  @ApiProperty() source_id: number;
  @ApiProperty() full_name: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() avatar_url: string;
  @ApiProperty() html_url: string;
  @ApiProperty() language: string;
  @ApiProperty() is_admin: boolean;
  @ApiProperty({ format: 'date-time' }) last_login: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiProperty() restricted: boolean;
  @ApiProperty() active: boolean;
  @ApiProperty() prohibit_login: boolean;
  @ApiProperty() location: string;
  @ApiProperty() website: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: ['public', 'limited', 'private'] }) visibility: string;
  @ApiProperty() followers_count: number;
  @ApiProperty() following_count: number;
  @ApiProperty() starred_repos_count: number;
  @ApiProperty() username: string;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * convert.ToUser: the real email only for signed-in callers (unless the user keeps it private and
 * the caller is neither the user nor an admin); admin-only fields are zero for other callers.
 */
export function presentGiteaUser(user: User, viewer: User | undefined, publicUrl: string): GiteaUserDto {
  const privileged = viewer !== undefined && (viewer.isAdmin || viewer.id === user.id);
  const showEmail = viewer !== undefined && (!user.keepEmailPrivate || privileged);
  return {
    id: Number(user.id),
    login: user.name,
    login_name: privileged ? user.loginName : '',
    source_id: privileged ? Number(user.loginSource) : 0,
    full_name: user.fullName,
    email: showEmail ? user.email : `${user.lowerName}@noreply.${new URL(publicUrl).hostname}`,
    avatar_url: user.avatarUrl || `${publicUrl}avatars/${user.lowerName}`,
    html_url: `${publicUrl}${encodeURIComponent(user.name)}`,
    language: privileged ? user.language : '',
    is_admin: privileged ? user.isAdmin : false,
    last_login: privileged && user.lastLoginAt ? user.lastLoginAt.toISOString() : ZERO_TIME,
    created: user.createdAt.toISOString(),
    restricted: user.restricted,
    active: privileged ? user.status === 'active' : false,
    prohibit_login: privileged ? user.prohibitLogin : false,
    location: user.location,
    website: user.website,
    description: user.description,
    visibility: user.visibility,
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: user.name,
  };
}

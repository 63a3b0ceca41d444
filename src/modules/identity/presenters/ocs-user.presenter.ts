import { ApiProperty } from '@nestjs/swagger';
import type { User } from '../entities/user.entity';

/** The subset of Nextcloud's provisioning user (`GET /ocs/v2.php/cloud/user`) that devplane knows. */
export class OcsUserDto {
  @ApiProperty() id: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ description: 'milliseconds since the epoch, 0 = never' }) lastLogin: number;
  @ApiProperty() backend: string;
  @ApiProperty({ type: [String] }) subadmin: string[];
  @ApiProperty() email: string | null;
  @ApiProperty() displayname: string;
  @ApiProperty({ name: 'display-name' }) 'display-name': string;
  @ApiProperty() phone: string;
  @ApiProperty() address: string;
  @ApiProperty() website: string;
  @ApiProperty() twitter: string;
  @ApiProperty() biography: string;
  @ApiProperty({ type: [String] }) groups: string[];
  @ApiProperty() language: string;
  @ApiProperty() locale: string;
  @ApiProperty() backendCapabilities: { setDisplayName: boolean; setPassword: boolean };
}

/** Nextcloud groups map onto devplane teams (`org/team`) plus `admin` for site administrators. */
export function presentOcsUser(user: User, groups: string[]): OcsUserDto {
  const displayName = user.fullName || user.name;
  return {
    id: user.name,
    enabled: user.status === 'active' && !user.prohibitLogin,
    lastLogin: user.lastLoginAt ? user.lastLoginAt.getTime() : 0,
    backend: 'Database',
    subadmin: [],
    email: user.email || null,
    displayname: displayName,
    'display-name': displayName,
    phone: '',
    address: user.location,
    website: user.website,
    twitter: '',
    biography: user.description,
    groups: user.isAdmin ? ['admin', ...groups] : groups,
    language: user.language || 'en',
    locale: '',
    backendCapabilities: { setDisplayName: true, setPassword: user.loginType === 'password' },
  };
}

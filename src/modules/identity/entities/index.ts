import { ApiToken } from './api-token.entity';
import { Organization } from './organization.entity';
import { OrganizationMember } from './organization-member.entity';
import { TeamMember } from './team-member.entity';
import { Team } from './team.entity';
import { User } from './user.entity';
import { UserOidcLink } from './user-oidc-link.entity';
import { UserStatusChange } from './user-status-change.entity';
import { UserSecret } from '../secrets/user-secret.entity';
import { UserBlock } from '../blocks/user-block.entity';
import { UserConfig } from '../settings/user-config.entity';

export const IDENTITY_ENTITIES = [
  User,
  Organization,
  OrganizationMember,
  Team,
  TeamMember,
  ApiToken,
  UserSecret,
  UserStatusChange,
  UserOidcLink,
  UserBlock,
  UserConfig,
];

import type { LoginType, UserStatus } from '../entities/user.entity';

/**
 * The query types identity's repositories take, next to them (issue 47.5): the services that parse a
 * dialect's search language build these, the repositories import nothing from their callers or a dialect.
 */

/** A page of a list: `limit` rows from `offset`, or after the row with id `afterId` (keyset). */
export interface Page {
  limit: number;
  offset: number;
  afterId?: string;
}

/** The filters of a user list (Coder's `searchquery.Users`). */
export interface UserSearch {
  search: string;
  statuses: UserStatus[];
  roles: string[];
  loginTypes: LoginType[];
  serviceAccount?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  lastSeenAfter?: Date;
  lastSeenBefore?: Date;
}

/** The filters of an organization's or group's member list. */
export interface MemberSearch {
  search: string;
  statuses: UserStatus[];
  loginTypes: LoginType[];
  roles: string[];
  serviceAccount?: boolean;
  userId?: string;
}

import { PublicKeysAndGrantTombstones1795267759783 } from './1795267759783-PublicKeysAndGrantTombstones';
import { UserSearchTrigramIndexes1795268000000 } from './1795268000000-UserSearchTrigramIndexes';

export const ADMIN_USERS_MIGRATIONS: Function[] = [
  PublicKeysAndGrantTombstones1795267759783,
  UserSearchTrigramIndexes1795268000000,
];

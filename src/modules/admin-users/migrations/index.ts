import { PublicKeysAndGrantTombstones1795267759783 } from './1795267759783-PublicKeysAndGrantTombstones';

export const ADMIN_USERS_MIGRATIONS: Function[] = [PublicKeysAndGrantTombstones1795267759783];

import { AdminGrantTombstone } from './admin-grant-tombstone.entity';
import { PublicKey } from './public-key.entity';

export const ADMIN_USERS_ENTITIES: Function[] = [PublicKey, AdminGrantTombstone];

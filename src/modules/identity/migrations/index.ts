import { Initial1795267388733 } from './1795267388733-Initial';
import { TeamUnits1795475321430 } from './1795475321430-TeamUnits';
import { UserSecrets1795734426768 } from './1795734426768-UserSecrets';

export const IDENTITY_MIGRATIONS: Function[] = [
  Initial1795267388733,
  TeamUnits1795475321430,
  UserSecrets1795734426768,
];

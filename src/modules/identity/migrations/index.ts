import { Initial1795267388733 } from './1795267388733-Initial';
import { TeamUnits1795475321430 } from './1795475321430-TeamUnits';
import { UserSecrets1795734426768 } from './1795734426768-UserSecrets';
import { CoderManagement1795738902108 } from './1795738902108-CoderManagement';
import { UserBlocks1795743029951 } from './1795743029951-UserBlocks';
import { GiteaTokenIds1795935322685 } from './1795935322685-GiteaTokenIds';
import { UserConfigs1796689665278 } from './1796689665278-UserConfigs';

export const IDENTITY_MIGRATIONS: Function[] = [
  Initial1795267388733,
  TeamUnits1795475321430,
  UserSecrets1795734426768,
  CoderManagement1795738902108,
  UserBlocks1795743029951,
  GiteaTokenIds1795935322685,
  UserConfigs1796689665278,
];

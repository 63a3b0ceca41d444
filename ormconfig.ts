import { DataSource } from 'typeorm';
import { loadConfig } from './src/platform/config/app-config';
import { APP_ENTITIES, APP_MIGRATIONS } from './src/app.modules';
import { dataSourceOptions } from './src/platform/database/data-source.factory';
import { openDatabase } from './src/platform/database/open-database';

/**
 * The TypeORM data source shared by the app and the TypeORM CLI
 * (`npm run typeorm -- migration:run`, `migration:show`, `migration:revert`).
 * With DATABASE_URL unset it opens the embedded database in DATA_DIR (take care: not while the app runs).
 */
export default (async () => {
  const config = loadConfig();
  const database = await openDatabase(config);
  return new DataSource(
    dataSourceOptions(config, database.url, { entities: APP_ENTITIES, migrations: APP_MIGRATIONS }),
  );
})();

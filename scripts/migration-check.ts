import { APP_ENTITIES } from '../src/app.modules';
import { withMigratedScratchDatabase } from './scratch-database';

/** Fails when the entities and the migrations disagree (a migration would be generated). */
async function main(): Promise<void> {
  const pending = await withMigratedScratchDatabase(APP_ENTITIES, async (dataSource) => {
    const sql = await dataSource.driver.createSchemaBuilder().log();
    return sql.upQueries.map((query) => query.query);
  });
  if (pending.length > 0) {
    process.stderr.write(
      `Entities and migrations disagree; generate a migration (npm run migration:generate -- <module> <Name>):\n${pending.map((q) => `  ${q}`).join('\n')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write('migration check: entities and migrations agree\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

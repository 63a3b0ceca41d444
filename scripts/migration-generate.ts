import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MANIFEST_NAMES, manifestNamed } from '../src/app.modules';
import { withMigratedScratchDatabase } from './scratch-database';

/**
 * `npm run migration:generate -- <module> <Name> [referenced modules...]`: writes the SQL that brings the migrated schema
 * to the module's entities into `src/modules/<module>/migrations/`, and rewrites that folder's
 * index.ts. Only the module's tables (plus identity, which everything references) are compared, so
 * modules developed side by side do not pick up each other's changes.
 */
function escape(sql: string): string {
  // Everything lives in one schema chosen by search_path: drop TypeORM's "public". qualifiers.
  return sql
    .replace(/"(public|scratch_[0-9a-f]+)"\./g, '')
    .replace(/\\/g, '\\\\')
    .replace(/`/g, '\\`')
    .replace(/\$\{/g, '\\${');
}

function writeIndex(folder: string, module: string): void {
  const files = readdirSync(folder)
    .filter((file) => /^\d+-.+\.ts$/.test(file))
    .sort();
  const imports = files.map((file) => {
    const name = file.replace(/\.ts$/, '');
    const className = `${name.replace(/^\d+-/, '')}${name.split('-')[0]}`;
    return { line: `import { ${className} } from './${name}';`, className };
  });
  const constant = `${module.toUpperCase().replace(/-/g, '_')}_MIGRATIONS`;
  writeFileSync(
    path.join(folder, 'index.ts'),
    `${imports.map((i) => i.line).join('\n')}\n\nexport const ${constant}: Function[] = [${imports.map((i) => i.className).join(', ')}];\n`,
  );
}

async function main(): Promise<void> {
  const [module, name, ...referenced] = process.argv.slice(2);
  if (!module || !name || !/^[A-Z][A-Za-z0-9]+$/.test(name) || !manifestNamed(module)) {
    process.stderr.write(
      `usage: npm run migration:generate -- <module> <PascalCaseName>\nmodules: ${MANIFEST_NAMES.join(', ')}\n`,
    );
    process.exit(2);
  }
  // Modules whose tables this one references (packages → repositories) are loaded too; their
  // migrations have run in the scratch database, so only this module's changes come out.
  const others = referenced.map((other) => manifestNamed(other)?.entities ?? []).flat();
  const entities = [
    ...new Set([...manifestNamed('identity')!.entities, ...others, ...manifestNamed(module)!.entities]),
  ];
  const sql = await withMigratedScratchDatabase(entities, (dataSource) =>
    dataSource.driver.createSchemaBuilder().log(),
  );
  if (sql.upQueries.length === 0) {
    process.stdout.write('No changes: entities and migrations agree.\n');
    return;
  }
  const timestamp = Date.now();
  const className = `${name}${timestamp}`;
  const up = sql.upQueries.map((q) => `    await queryRunner.query(\`${escape(q.query)}\`);`).join('\n');
  const down = sql.downQueries
    .reverse()
    .map((q) => `    await queryRunner.query(\`${escape(q.query)}\`);`)
    .join('\n');
  // The platform's own tables (jobs) are not a module's: their migrations live in src/platform/migrations/.
  const folder =
    module === 'platform'
      ? path.join(__dirname, '..', 'src', 'platform', 'migrations')
      : path.join(__dirname, '..', 'src', 'modules', module, 'migrations');
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${timestamp}-${name}.ts`);
  writeFileSync(
    file,
    `import type { MigrationInterface, QueryRunner } from 'typeorm';\n\nexport class ${className} implements MigrationInterface {\n  name = '${className}';\n\n  public async up(queryRunner: QueryRunner): Promise<void> {\n${up}\n  }\n\n  public async down(queryRunner: QueryRunner): Promise<void> {\n${down}\n  }\n}\n`,
  );
  writeIndex(folder, module);
  process.stdout.write(`Wrote ${path.relative(process.cwd(), file)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

import SwaggerParser from '@apidevtools/swagger-parser';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createApp } from '../src/app.factory';
import { buildExperimentalOpenApiDocument, buildOpenApiDocument } from '../src/api/openapi';
import { loadConfig } from '../src/platform/config/app-config';
import { openDatabase } from '../src/platform/database/open-database';

/**
 * Generates the OpenAPI document from the code and fails when it is invalid, when an operation lacks
 * a tag, a summary or a success response, or when it differs from the committed openapi.json
 * (`npm run openapi:write` rewrites that file; commit it with the routes that changed it).
 */
async function main(): Promise<void> {
  const config = {
    ...loadConfig({ ...process.env, DATABASE_SCHEMA: `openapi_${process.pid}`, LOG_LEVEL: 'warn' }),
    bootstrapAdminOnStart: false,
  };
  const database = await openDatabase(config);
  const app = await createApp(config, database);
  const problems: string[] = [];
  let operations = 0;
  try {
    const document = buildOpenApiDocument(app);
    const file = path.join(process.cwd(), 'openapi.json');
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (process.argv.includes('--write')) writeFileSync(file, text);
    else {
      const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (committed !== text)
        problems.push('openapi.json differs from the code: run `npm run openapi:write` and commit it');
    }
    await SwaggerParser.validate(JSON.parse(JSON.stringify(document)) as never);
    // The experimental document (chats) is served apart, not committed, and held to the same rules.
    const experimental = buildExperimentalOpenApiDocument(app);
    await SwaggerParser.validate(JSON.parse(JSON.stringify(experimental)) as never);
    for (const [route, item] of [...Object.entries(document.paths), ...Object.entries(experimental.paths)]) {
      for (const [method, operation] of Object.entries(
        item as Record<string, { tags?: string[]; summary?: string; responses?: Record<string, unknown> }>,
      )) {
        if (!['get', 'put', 'post', 'delete', 'patch', 'head'].includes(method)) continue;
        operations++;
        const where = `${method.toUpperCase()} ${route}`;
        if (!operation.tags?.length) problems.push(`${where}: no tag`);
        if (!operation.summary) problems.push(`${where}: no summary (@ApiOperation)`);
        const codes = Object.keys(operation.responses ?? {});
        if (!codes.some((code) => /^[23]\d\d$/.test(code)))
          problems.push(`${where}: no documented success response`);
      }
    }
    process.stdout.write(
      `openapi: ${operations} operations${process.argv.includes('--write') ? ` written to ${path.relative(process.cwd(), file)}` : ', openapi.json checked'}\n`,
    );
  } finally {
    await app.close();
    const { Client } = await import('pg');
    const client = new Client({ connectionString: database.url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${config.databaseSchema}" CASCADE`);
    await client.end();
    await database.close();
  }
  if (problems.length > 0) {
    process.stderr.write(`OpenAPI document incomplete:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `openapi check failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

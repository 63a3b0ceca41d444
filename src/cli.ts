import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { PasswordStrengthService } from './modules/auth/password-strength.service';
import { canonicalExternalScope } from './modules/auth/rbac/rbac-catalogue';
import { isGiteaScope } from './modules/auth/token-scopes';
import { ApiTokensService } from './modules/identity/api-tokens.service';
import { BootstrapAdminService } from './modules/identity/bootstrap-admin.service';
import { UsersService } from './modules/identity/users.service';
import { ConfigError, loadConfig } from './platform/config/app-config';
import { dataSourceOptions } from './platform/database/data-source.factory';
import { DataDirectoryLockedError } from './platform/database/embedded-postgres';
import { openDatabase } from './platform/database/open-database';

const USAGE = `devplane admin CLI: npm run cli -- <command> [options]

  migrate                                   apply pending migrations
  create-admin --username U --email E [--password P]
                                            create a site administrator (the first one holds the bootstrap grant);
                                            without --password one is generated and printed once
  create-user  --username U --email E [--password P] [--admin]
  create-token --username U [--name N] [--scopes all,read:user] [--lifetime-days 30]
                                            print a new API token (shown once)

Uses the same configuration as the server (DATABASE_URL, or the embedded database in DATA_DIR:
stop the server first, the embedded database takes one process at a time).`;

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

/** The CLI sets passwords like the Coder dialect does: the entropy rule applies. */
function assertStrong(strength: PasswordStrengthService, password: string): void {
  const verdict = strength.check(password);
  if (!verdict.valid) throw new UsageError(`--password is too weak: ${verdict.details}`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'lifetime-days': { type: 'string' },
    },
    strict: true,
  });
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = { ...loadConfig(), bootstrapAdminOnStart: false, logLevel: 'warn' as const };
  const database = await openDatabase(config);
  try {
    if (command === 'migrate') {
      const dataSource = await new DataSource(dataSourceOptions(config, database.url)).initialize();
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      await dataSource.destroy();
      process.stdout.write(applied.length ? `Applied ${applied.map((m) => m.name).join(', ')}\n` : 'No pending migrations.\n');
      return;
    }
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, database), { logger: ['error', 'warn'] });
    try {
      switch (command) {
        case 'create-admin': {
          if (values.password) assertStrong(app.get(PasswordStrengthService), values.password);
          const { user, password, generated } = await app.get(BootstrapAdminService).createAdmin({
            username: required(values, 'username'),
            email: required(values, 'email'),
            password: values.password,
          });
          process.stdout.write(`Created administrator ${user.name} (id ${user.id}, uuid ${user.uuid}).\n`);
          if (generated) process.stdout.write(`Password: ${password}\n`);
          break;
        }
        case 'create-user': {
          const password = values.password;
          if (password) assertStrong(app.get(PasswordStrengthService), password);
          const user = await app.get(UsersService).create({
            username: required(values, 'username'),
            email: required(values, 'email'),
            password: password ?? null,
            loginType: password ? 'password' : 'none',
            isAdmin: values.admin === true,
            siteRoles: values.admin ? ['owner'] : [],
          });
          process.stdout.write(`Created user ${user.name} (id ${user.id}, uuid ${user.uuid}).\n`);
          break;
        }
        case 'create-token': {
          const user = await app.get(UsersService).requireByName(required(values, 'username'));
          const days = Number(values['lifetime-days'] ?? 30);
          if (!Number.isFinite(days) || days <= 0) throw new UsageError('--lifetime-days must be a positive number');
          const scopes = (values.scopes ?? 'all').split(',').map((s) => s.trim()).filter(Boolean);
          const unknown = scopes.filter((scope) => canonicalExternalScope(scope) === null && !isGiteaScope(scope));
          if (scopes.length === 0 || unknown.length > 0) {
            throw new UsageError(`--scopes: unknown scope(s) ${unknown.join(', ') || '(none given)'}; see GET /api/v2/auth/scopes and Gitea's read:/write:<category>`);
          }
          const { key, token } = await app.get(ApiTokensService).create({
            userId: user.id,
            name: values.name,
            scopes,
            lifetimeSeconds: Math.round(days * 86_400),
          });
          process.stdout.write(`Token "${token.name}" for ${user.name}, expires ${token.expiresAt.toISOString()}:\n${key}\n`);
          break;
        }
        default:
          throw new UsageError(`unknown command "${command}"`);
      }
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${USAGE}\n`);
  else if (error instanceof ConfigError || error instanceof DataDirectoryLockedError) process.stderr.write(`${error.message}\n`);
  else if (error instanceof Error) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PasswordStrengthService } from './modules/auth/password-strength.service';
import { ConfigError, loadConfig } from './platform/config/app-config';
import type { AppConfig } from './platform/config/app-config';
import { DataDirectoryLockedError } from './platform/database/embedded-postgres';
import { openDatabase, type OpenDatabase } from './platform/database/open-database';
import { LIGHT_COMMANDS, required, runLightCommand, SchemaBehind, UsageError } from './cli-light';

// The application (AppModule, every module) is loaded only by the commands that need it (issue 51.5):
// the light commands (src/cli-light.ts) run on the identity repositories alone, in well under a second
// of their own.
const USAGE = `devplane admin CLI: npm run cli -- <command> [options]

  migrate                                   apply pending migrations
  create-admin --username U --email E [--password P]
                                            create a site administrator (the first one holds the bootstrap grant);
                                            without --password one is generated and printed once
  create-user  --username U --email E [--password P] [--admin]
                                            without --password one is generated and printed once
  suspend --username U / activate --username U
                                            suspend an account (sign-in and tokens refused) or make it active again
  set-admin --username U [--no-admin]       grant site administration, or take it away with --no-admin
  list-tokens --username U                  the user's API tokens and sessions (id, name, login type, expiry,
                                            last use); the secrets are never shown again
  revoke-token --username U --id ID         delete one token of the user
  create-token --username U [--name N] [--scopes all,read:user] [--lifetime-days D]
                                            print a new API token (shown once); without --lifetime-days it
                                            lives TOKEN_DEFAULT_LIFETIME_SECONDS (7 days); longer than the
                                            user's cap (an administrator's: TOKEN_MAX_ADMIN_LIFETIME_SECONDS,
                                            7 days) is refused, as the API refuses it
  list-users                                list individual accounts (id, name, e-mail, admin, status, login type)
  reset-password --username U [--password P] [--must-change-password]
                                            set a new password (generated and printed when not given)
  delete-user --username U [--purge]        delete an account as the bootstrap administrator would (refused while
                                            the user owns resources, unless --purge removes them)
  dump --output FILE [--include-key]       a backup of the instance (tar.gz), taken while the server runs:
                                            the database (one snapshot), the repositories, the local blobs and,
                                            only with --include-key, the secrets key (else keep it apart);
                                            progress on stderr
  restore --input FILE [--force]            load a dump into an empty DATA_DIR and database; --force replaces
                                            existing data (files moved aside as <name>.replaced-<time>, a
                                            PostgreSQL schema dropped and recreated); the server must be stopped

Uses the same configuration as the server (DATABASE_URL, or the embedded database in DATA_DIR). While a
server runs on the embedded database, the commands connect to it through its Unix socket in DATA_DIR (as
another connection of the server's own pool); restore needs the server stopped. The CLI never listens
on a port (no CONNECT proxy, no metrics port), whatever the environment configures.
\`npm run cli -- <command>\` never builds: it runs dist/cli.js when a build exists (the code \`npm start\` runs),
else the source through @swc-node/register; \`node dist/cli.js <command>\` in a production install or the
Docker image. The account and token commands (list-users, list-tokens, create-token, revoke-token) load
only the identity tables' code, not the application.`;

/** The CLI sets passwords like the Coder dialect does: the entropy rule applies. */
function assertStrong(strength: PasswordStrengthService, password: string): void {
  const verdict = strength.check(password);
  if (!verdict.valid) throw new UsageError(`--password is too weak: ${verdict.details}`);
}

/**
 * The database as the server opens it; when a server already holds the embedded database of DATA_DIR,
 * its Unix socket there (owner-only, the same user): the CLI is then one more connection of the
 * server's PGlite, which serves its pool's connections one statement at a time anyway. A server whose
 * socket had to move to a temporary directory (DATA_DIR too long) cannot be found: stop it first.
 */
async function openCliDatabase(config: AppConfig): Promise<OpenDatabase> {
  try {
    return await openDatabase(config);
  } catch (error) {
    if (!(error instanceof DataDirectoryLockedError) || config.databaseUrl) throw error;
    const socket = path.join(path.resolve(config.dataDir), '.s.PGSQL.5432');
    if (!existsSync(socket)) throw error;
    const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(path.dirname(socket))}`;
    return { url, embedded: true, close: async () => undefined };
  }
}

/**
 * A module loaded when a command needs it, not when the CLI starts (issue 51.5): the application and
 * its modules take seconds to load, and the light commands need none of them.
 */
function lazy<T>(id: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at call time: startup cost
  return require(id) as T;
}

/** The commands that run on the whole application (the others: LIGHT_COMMANDS, migrate, dump, restore). */
const FULL_COMMANDS = new Set([
  'create-admin',
  'create-user',
  'suspend',
  'activate',
  'set-admin',
  'reset-password',
  'delete-user',
]);

/** The application without HTTP (a Nest application context): it migrates the schema as it starts. */
async function bootApplication(config: AppConfig, database: OpenDatabase) {
  const { NestFactory } = lazy<typeof import('@nestjs/core')>('@nestjs/core');
  const { AppModule } = lazy<typeof import('./app.module')>('./app.module');
  return NestFactory.createApplicationContext(AppModule.forRoot(config, database), {
    logger: ['error', 'warn'],
  });
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
      'must-change-password': { type: 'boolean' },
      purge: { type: 'boolean' },
      output: { type: 'string' },
      input: { type: 'string' },
      force: { type: 'boolean' },
      'include-key': { type: 'boolean' },
      'no-admin': { type: 'boolean' },
      id: { type: 'string' },
    },
    strict: true,
  });
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // The CLI starts no listener (issue 31.12): the AI gateway's CONNECT proxy and the separate metrics
  // port are the server's, and binding them while the server runs fails.
  const config = {
    ...loadConfig({ ...process.env, AI_GATEWAY_PROXY_ADDRESS: '', METRICS_PORT: '' }),
    bootstrapAdminOnStart: false,
    logLevel: 'warn' as const,
  };
  // dump and restore work below the application (src/platform/database/dump.ts); progress goes to stderr.
  const progress = (line: string): void => void process.stderr.write(`${line}\n`);
  if (command === 'dump') {
    const { dumpInstance } = lazy<typeof import('./platform/database/dump')>('./platform/database/dump');
    const result = await dumpInstance(config, required(values, 'output'), {
      open: () => openCliDatabase(config),
      includeKey: values['include-key'] === true,
      progress,
    });
    process.stdout.write(`${result}\n`);
    return;
  }
  if (command === 'restore') {
    const { restoreInstance } = lazy<typeof import('./platform/database/dump')>('./platform/database/dump');
    const { APP_MIGRATIONS } = lazy<typeof import('./app.modules')>('./app.modules');
    const result = await restoreInstance(config, required(values, 'input'), {
      open: () => openDatabase(config),
      migrations: APP_MIGRATIONS,
      force: values.force === true,
      progress,
    });
    process.stdout.write(`${result}\n`);
    return;
  }
  const database = await openCliDatabase(config);
  try {
    if (LIGHT_COMMANDS.has(command)) {
      try {
        await runLightCommand(command, values, config, database);
        return;
      } catch (error) {
        if (!(error instanceof SchemaBehind)) throw error;
      }
      // A schema that is missing or behind: the application migrates it (as the server would at
      // start), then the light command runs on it.
      await (await bootApplication(config, database)).close();
      await runLightCommand(command, values, config, database);
      return;
    }
    if (command === 'migrate') {
      const { DataSource } = lazy<typeof import('typeorm')>('typeorm');
      const { dataSourceOptions } = lazy<typeof import('./platform/database/data-source.factory')>(
        './platform/database/data-source.factory',
      );
      const { APP_ENTITIES, APP_MIGRATIONS } = lazy<typeof import('./app.modules')>('./app.modules');
      const dataSource = await new DataSource(
        dataSourceOptions(config, database.url, { entities: APP_ENTITIES, migrations: APP_MIGRATIONS }),
      ).initialize();
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      await dataSource.destroy();
      process.stdout.write(
        applied.length ? `Applied ${applied.map((m) => m.name).join(', ')}\n` : 'No pending migrations.\n',
      );
      return;
    }
    if (!FULL_COMMANDS.has(command)) throw new UsageError(`unknown command "${command}"`);
    const app = await bootApplication(config, database);
    const { PasswordStrengthService } = lazy<typeof import('./modules/auth/password-strength.service')>(
      './modules/auth/password-strength.service',
    );
    const { BootstrapAdminService } = lazy<typeof import('./modules/identity/bootstrap-admin.service')>(
      './modules/identity/bootstrap-admin.service',
    );
    const { UsersService } = lazy<typeof import('./modules/identity/users.service')>(
      './modules/identity/users.service',
    );
    const { AdminUsersService } = lazy<typeof import('./modules/admin-users/admin-users.service')>(
      './modules/admin-users/admin-users.service',
    );
    const { EditUserOptionDto } = lazy<typeof import('./modules/admin-users/dto/edit-user-option.dto')>(
      './modules/admin-users/dto/edit-user-option.dto',
    );
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
          // Without --password one is generated (as create-admin does): a user made here can sign in.
          const generated = values.password === undefined;
          const password = values.password ?? randomBytes(18).toString('base64url');
          if (!generated) assertStrong(app.get(PasswordStrengthService), password);
          const user = await app.get(UsersService).create({
            username: required(values, 'username'),
            email: required(values, 'email'),
            password,
            loginType: 'password',
            isAdmin: values.admin === true,
            siteRoles: values.admin ? ['owner'] : [],
          });
          process.stdout.write(`Created user ${user.name} (id ${user.id}, uuid ${user.uuid}).\n`);
          if (generated) process.stdout.write(`Password: ${password}\n`);
          break;
        }
        case 'suspend':
        case 'activate':
        case 'set-admin': {
          // Through the administration service, as the bootstrap administrator: the same policy
          // (last administrator, own flags) and the same audit entries as the API.
          const users = app.get(UsersService);
          const target = await users.requireByName(required(values, 'username'));
          const root = await users.findBootstrapAdmin();
          if (!root) throw new UsageError('no bootstrap administrator exists to act as');
          const change =
            command === 'set-admin'
              ? { admin: values['no-admin'] !== true }
              : { active: command === 'activate' };
          const updated = await app.get(AdminUsersService).edit(
            root,
            target,
            Object.assign(new EditUserOptionDto(), {
              login_name: target.loginName,
              source_id: 0,
              ...change,
            }),
          );
          process.stdout.write(
            `${updated.name}: status ${updated.status}, ${updated.isAdmin ? 'site administrator' : 'not an administrator'}.\n`,
          );
          break;
        }
        case 'reset-password': {
          const users = app.get(UsersService);
          const user = await users.requireByName(required(values, 'username'));
          if (user.loginType !== 'password') {
            throw new UsageError(`${user.name} signs in with ${user.loginType}, not a password`);
          }
          const generated = values.password === undefined;
          const password = values.password ?? randomBytes(18).toString('base64url');
          if (!generated) assertStrong(app.get(PasswordStrengthService), password);
          await users.resetPassword(user, password, values['must-change-password'] === true);
          process.stdout.write(`Password of ${user.name} reset.\n`);
          if (generated) process.stdout.write(`Password: ${password}\n`);
          break;
        }
        case 'delete-user': {
          const users = app.get(UsersService);
          const target = await users.requireByName(required(values, 'username'));
          const root = await users.findBootstrapAdmin();
          if (!root) throw new UsageError('no bootstrap administrator exists to act as');
          await app.get(AdminUsersService).delete(root, target, values.purge === true);
          process.stdout.write(`Deleted user ${target.name}.\n`);
          break;
        }
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
  else if (error instanceof ConfigError || error instanceof DataDirectoryLockedError)
    process.stderr.write(`${error.message}\n`);
  else if (error instanceof Error) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});

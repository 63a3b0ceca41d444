import { DataSource, QueryFailedError } from 'typeorm';
import type { AppConfig } from './platform/config/app-config';
import { dataSourceOptions } from './platform/database/data-source.factory';
import type { DatabaseRuntime } from './platform/database/database-runtime';
import { SiteConfig } from './platform/site-config/site-config.entity';
import { ClusterBus } from './platform/events/cluster-bus.service';
import { TableWriteTracker } from './platform/cache/table-write-tracker.service';
import { loadAuthConfig, tokenLifetime } from './modules/auth/auth.config';
import { canonicalExternalScope } from './modules/auth/rbac/rbac-catalogue';
import { isGiteaScope } from './modules/auth/token-scopes';
import { ActivityRecorder } from './modules/identity/activity-recorder.service';
import { ApiTokensService } from './modules/identity/api-tokens.service';
import { IDENTITY_ENTITIES } from './modules/identity/entities';
import type { User } from './modules/identity/entities/user.entity';
import { AccountsRepository } from './modules/identity/repositories/accounts.repository';
import { ActivityRepository } from './modules/identity/repositories/activity.repository';
import { ApiTokenLookupRepository } from './modules/identity/repositories/api-token-lookup.repository';
import { ApiTokensRepository } from './modules/identity/repositories/api-tokens.repository';
import { UsersRepository } from './modules/identity/repositories/users.repository';

/**
 * The admin CLI's light path (issue 51.5): the commands that read or write accounts and tokens run on
 * a TypeORM DataSource with the identity entities and the identity repositories and services they
 * need, without Nest, the HTTP application or the other modules (booting those took 3-10 s per
 * command). Writes are announced to running server instances over the ClusterBus, as the server's
 * own writes are (their token caches drop a revoked token at once). The schema is not migrated here:
 * on a database whose schema is missing or behind (a table or column the entities name is absent),
 * the light path gives up before writing and the CLI runs the command on the full application,
 * which migrates first.
 */
export const LIGHT_COMMANDS: ReadonlySet<string> = new Set([
  'list-users',
  'list-tokens',
  'revoke-token',
  'create-token',
]);

export class UsageError extends Error {}

/** The schema is missing or older than this code: the full application migrates it. */
export class SchemaBehind extends Error {}

export type CliValues = Record<string, string | boolean | undefined>;

export function required(values: CliValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  for (const row of [header, ...rows]) {
    process.stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
}

/** The API's token lifetime rule (auth.config.ts), with the CLI's wording; undefined = the default. */
export function cliTokenLifetimeSeconds(
  env: NodeJS.ProcessEnv,
  user: Pick<User, 'name' | 'isAdmin'>,
  lifetimeDays: string | undefined,
): number {
  let requested = 0;
  if (lifetimeDays !== undefined) {
    const days = Number(lifetimeDays);
    if (!Number.isFinite(days) || days <= 0)
      throw new UsageError('--lifetime-days must be a positive number');
    requested = Math.max(1, Math.round(days * 86_400));
  }
  const auth = loadAuthConfig(env);
  const verdict = tokenLifetime(auth, user.isAdmin, requested);
  if ('refused' in verdict) {
    const setting = user.isAdmin ? 'TOKEN_MAX_ADMIN_LIFETIME_SECONDS' : 'TOKEN_MAX_LIFETIME_SECONDS';
    const max = user.isAdmin ? auth.maxAdminTokenLifetimeSeconds : auth.maxTokenLifetimeSeconds;
    // Refused, as the API refuses it (not a usage mistake: no usage text).
    throw new Error(
      `--lifetime-days: ${verdict.refused} (${user.isAdmin ? 'a site administrator' : 'a user'}'s tokens live at most ${+(max / 86_400).toFixed(2)} days, ${setting})`,
    );
  }
  return verdict.seconds;
}

function isSchemaError(error: unknown): boolean {
  const code = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
  // undefined_table, undefined_column
  return code === '42P01' || code === '42703';
}

async function requireUser(users: UsersRepository, name: string): Promise<User> {
  const user = await users.findOneBy({ name, type: 'individual' });
  if (!user) throw new UsageError(`user does not exist [uid: 0, name: ${name}]`);
  return user;
}

/**
 * Runs a command of LIGHT_COMMANDS. Throws SchemaBehind (before any write) when the schema is not the
 * one these entities describe.
 */
export async function runLightCommand(
  command: string,
  values: CliValues,
  config: AppConfig,
  runtime: DatabaseRuntime,
): Promise<void> {
  const dataSource = await new DataSource({
    ...dataSourceOptions({ ...config, databasePoolSize: 1 }, runtime.url, {
      entities: [...IDENTITY_ENTITIES, SiteConfig],
      migrations: [],
    }),
    // A schema that is missing or behind is expected here (the full application takes over): TypeORM's
    // error log would print the failed probe on stdout, in the middle of the command's output.
    logging: false,
  }).initialize();
  let bus: ClusterBus | undefined;
  let tracker: TableWriteTracker | undefined;
  try {
    const users = new UsersRepository(dataSource);
    const tokenRows = new ApiTokensRepository(dataSource);
    // The reads every command starts with: a schema that is missing or behind fails here.
    const probe = async <T>(read: () => Promise<T>): Promise<T> => {
      try {
        return await read();
      } catch (error) {
        if (isSchemaError(error)) throw new SchemaBehind((error as Error).message);
        throw error;
      }
    };
    if (command === 'list-users') {
      const rows = (await probe(() => users.listIndividuals())).map((user) => [
        String(user.id),
        user.name,
        user.email,
        user.isAdmin ? 'admin' : '',
        user.status,
        user.loginType,
      ]);
      printTable(['ID', 'USERNAME', 'EMAIL', 'ADMIN', 'STATUS', 'LOGIN TYPE'], rows);
      return;
    }
    const user = await probe(() => requireUser(users, required(values, 'username')));
    const tokenList = await probe(() => tokenRows.listForUser(user.id));
    if (command === 'list-tokens') {
      const rows = tokenList.map((token) => [
        token.id,
        token.name,
        token.loginType,
        token.scopes.join(','),
        token.expiresAt.toISOString(),
        token.lastUsedAt ? token.lastUsedAt.toISOString() : '-',
      ]);
      printTable(['ID', 'NAME', 'LOGIN TYPE', 'SCOPES', 'EXPIRES', 'LAST USED'], rows);
      return;
    }
    // The writes: announced to the server's other instances like any write of the server.
    bus = new ClusterBus(runtime);
    await bus.onModuleInit();
    tracker = new TableWriteTracker(dataSource, bus);
    tracker.onModuleInit();
    const tokens = new ApiTokensService(
      tokenRows,
      config,
      new ActivityRecorder(new ActivityRepository(dataSource)),
      new AccountsRepository(dataSource),
      new ApiTokenLookupRepository(dataSource),
    );
    if (command === 'revoke-token') {
      const id = required(values, 'id');
      const token = tokenList.find((candidate) => candidate.id === id);
      if (!token) throw new UsageError(`${user.name} has no token with id ${id}`);
      await tokens.delete(token.id);
      process.stdout.write(`Revoked token "${token.name}" (${token.id}) of ${user.name}.\n`);
      return;
    }
    if (command === 'create-token') {
      const lifetimeSeconds = cliTokenLifetimeSeconds(process.env, user, values['lifetime-days'] as string);
      const scopes = ((values.scopes as string | undefined) ?? 'all')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = scopes.filter(
        (scope) => canonicalExternalScope(scope) === null && !isGiteaScope(scope),
      );
      if (scopes.length === 0 || unknown.length > 0) {
        throw new UsageError(
          `--scopes: unknown scope(s) ${unknown.join(', ') || '(none given)'}; see GET /api/v2/auth/scopes and Gitea's read:/write:<category>`,
        );
      }
      const { key, token } = await tokens.create({
        userId: user.id,
        name: values.name as string | undefined,
        scopes,
        lifetimeSeconds,
      });
      process.stdout.write(
        `Token "${token.name}" for ${user.name}, expires ${token.expiresAt.toISOString()}:\n${key}\n`,
      );
      return;
    }
    throw new UsageError(`unknown command "${command}"`);
  } finally {
    await tracker?.beforeApplicationShutdown();
    await bus?.onApplicationShutdown();
    await dataSource.destroy();
  }
}

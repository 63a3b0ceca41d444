import ipaddr from 'ipaddr.js';
import path from 'node:path';

/**
 * Typed configuration, read once from the environment and validated at boot.
 * A bad value stops the start with a message naming the variable (ConfigError).
 * Every variable is documented in the README ("Configuration").
 */
export interface AppConfig {
  port: number;
  publicUrl: string; // always ends with '/'
  /** Address to bind (`HOST`, default 0.0.0.0: every interface). */
  host: string;
  databaseUrl: string | undefined;
  /** Schema to use inside the database (tests run one schema per file). */
  databaseSchema: string | undefined;
  /** Internal: DATABASE_URL points at an embedded PGlite served by another process (the test harness). */
  databaseIsEmbedded: boolean;
  databasePoolSize: number;
  dataDir: string;
  redisUrl: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `GET /metrics`: `METRICS_TOKEN` (Bearer on the main port) or `METRICS_PORT` (+ `METRICS_HOST`, default 127.0.0.1). */
  metrics: { token: string | null; port: number | null; host: string };
  /** `LOG_FORMAT`: `json` (default) or `pretty`. */
  logFormat: 'json' | 'pretty';
  admin: { username: string; email: string; password: string | undefined };
  smtp: { url: string | undefined; from: string };
  notifications: { method: 'smtp' | 'webhook'; webhookUrl: string | undefined };
  storage: {
    type: 'local' | 's3';
    s3: { endpoint?: string; bucket?: string; accessKey?: string; secretKey?: string; region: string };
  };
  password: { minLength: number; complexity: string[]; checkPwned: string };
  emailDomainAllowlist: string[];
  emailDomainBlocklist: string[];
  superAdminEnabled: boolean;
  adminManagementPolicy: 'grantor-inheritance' | 'grantor-only' | 'super-admins-only';
  passwordLoginEnabled: boolean;
  experiments: string[];
  attachments: {
    enabled: boolean;
    maxSizeMb: number;
    allowedTypes: string;
    releaseMaxSizeMb: number;
    releaseAllowedTypes: string;
  };
  /** Largest npm publish document (JSON with base64 tarballs, parsed in memory), NPM_PUBLISH_MAX_SIZE_MB. */
  npmPublishMaxSizeMb: number;
  /** How many large JSON bodies (npm publish documents) are read and parsed at once, LARGE_BODY_CONCURRENCY. */
  largeBodyConcurrency: number;
  rateLimit: { enabled: boolean; apiPerMinute: number; loginPerMinute: number };
  sessionDurationSeconds: number;
  /** Longest life of a cached credential lookup or RBAC subject (writes drop them at once); 0 = no cache. */
  identityCacheSeconds: number;
  /** Addresses or CIDR ranges of reverse proxies whose `X-Forwarded-For` is believed (`TRUSTED_PROXIES`); none by default. */
  trustedProxies: string[];
  /** Extra browser origins allowed besides PUBLIC_URL's (`CORS_ORIGINS`, comma-separated); optional for merge with ops. */
  corsOrigins?: string[];
  /** The environment this configuration was read from: module settings (src/modules/<m>/<m>.config.ts) read it too. */
  env: Readonly<Env>;
  /** Create the bootstrap administrator at start when there are no users (off for the CLI). */
  bootstrapAdminOnStart: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

export type Env = Record<string, string | undefined>;

/** Gitea's default [attachment] ALLOWED_TYPES. */
export const GITEA_DEFAULT_ATTACHMENT_TYPES =
  '.avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip';

/** Readers for module-specific settings (see src/modules/<module>/*.config.ts). */
export function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const lowered = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
  if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // Never the value: a URL may carry a password (DATABASE_URL, proxies).
    throw new ConfigError(name, 'must be a URL (the value is not shown: it may contain credentials)');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

export function list(env: Env, name: string): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** TRUSTED_PROXIES: IPv4/IPv6 addresses or CIDR ranges, comma-separated. */
function trustedProxies(env: Env): string[] {
  const entries = list(env, 'TRUSTED_PROXIES');
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid)
      throw new ConfigError(
        'TRUSTED_PROXIES',
        `has "${entry}", which is neither an IP address nor a CIDR range`,
      );
  }
  return entries;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const publicUrl =
    url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${read(env, 'PORT') ?? 3000}/`;
  const complexity = list(env, 'PASSWORD_COMPLEXITY').filter((c) => c !== 'off');
  for (const item of complexity) {
    if (!['lower', 'upper', 'digit', 'spec'].includes(item)) {
      throw new ConfigError('PASSWORD_COMPLEXITY', `accepts off, lower, upper, digit, spec; got "${item}"`);
    }
  }
  const checkPwned = read(env, 'PASSWORD_CHECK_PWNED') ?? 'local';
  if (!['off', 'local'].includes(checkPwned)) url(env, 'PASSWORD_CHECK_PWNED', ['http:', 'https:']);
  const schema = read(env, 'DATABASE_SCHEMA');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError('DATABASE_SCHEMA', 'must be a lower-case SQL identifier');
  }
  const adminEmail = read(env, 'ADMIN_EMAIL') ?? 'admin@localhost';
  if (!/^[^@\s]+@[^@\s]+$/.test(adminEmail)) throw new ConfigError('ADMIN_EMAIL', `must be an email address`);

  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    publicUrl: publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`,
    host: read(env, 'HOST') ?? '0.0.0.0',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseSchema: schema,
    databaseIsEmbedded: bool(env, 'DATABASE_EMBEDDED', false),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    dataDir: path.resolve(read(env, 'DATA_DIR') ?? './data'),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    logFormat: oneOf(env, 'LOG_FORMAT', ['json', 'pretty'], 'json'),
    metrics: {
      token: read(env, 'METRICS_TOKEN') ?? null,
      port: read(env, 'METRICS_PORT') === undefined ? null : int(env, 'METRICS_PORT', 0, 0, 65535),
      host: read(env, 'METRICS_HOST') ?? '127.0.0.1',
    },
    admin: {
      username: read(env, 'ADMIN_USERNAME') ?? 'admin',
      email: adminEmail,
      password: read(env, 'ADMIN_PASSWORD'),
    },
    smtp: {
      url: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
      from: read(env, 'SMTP_FROM') ?? 'devplane <devplane@localhost>',
    },
    notifications: {
      method: oneOf(env, 'NOTIFICATIONS_METHOD', ['smtp', 'webhook'], 'smtp'),
      webhookUrl: url(env, 'NOTIFICATIONS_WEBHOOK_URL', ['http:', 'https:']),
    },
    storage: {
      type: oneOf(env, 'STORAGE_TYPE', ['local', 's3'], 'local'),
      s3: {
        endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
        bucket: read(env, 'S3_BUCKET'),
        accessKey: read(env, 'S3_ACCESS_KEY'),
        secretKey: read(env, 'S3_SECRET_KEY'),
        region: read(env, 'S3_REGION') ?? 'us-east-1',
      },
    },
    password: {
      minLength: int(env, 'PASSWORD_MIN_LENGTH', 8, 1, 255),
      complexity,
      checkPwned,
    },
    emailDomainAllowlist: list(env, 'EMAIL_DOMAIN_ALLOWLIST'),
    emailDomainBlocklist: list(env, 'EMAIL_DOMAIN_BLOCKLIST'),
    superAdminEnabled: bool(env, 'SUPER_ADMIN_ENABLED', false),
    adminManagementPolicy: oneOf(
      env,
      'ADMIN_MANAGEMENT_POLICY',
      ['grantor-inheritance', 'grantor-only', 'super-admins-only'],
      'grantor-inheritance',
    ),
    passwordLoginEnabled: bool(env, 'PASSWORD_LOGIN_ENABLED', true),
    experiments: list(env, 'EXPERIMENTS'),
    attachments: {
      enabled: bool(env, 'ATTACHMENTS_ENABLED', true),
      maxSizeMb: int(env, 'ATTACHMENT_MAX_SIZE_MB', 100, 1, 1_000_000),
      allowedTypes: read(env, 'ATTACHMENT_ALLOWED_TYPES') ?? GITEA_DEFAULT_ATTACHMENT_TYPES,
      releaseMaxSizeMb: int(env, 'RELEASE_ATTACHMENT_MAX_SIZE_MB', 2048, 1, 1_000_000),
      releaseAllowedTypes: read(env, 'RELEASE_ATTACHMENT_ALLOWED_TYPES') ?? '*/*',
    },
    // Parsed in memory (about four times the document at the peak): a limit that fits memory (issue #46.1).
    npmPublishMaxSizeMb: int(env, 'NPM_PUBLISH_MAX_SIZE_MB', 32, 1, 4096),
    largeBodyConcurrency: int(env, 'LARGE_BODY_CONCURRENCY', 2, 1, 64),
    rateLimit: {
      enabled: bool(env, 'RATE_LIMIT_ENABLED', true),
      apiPerMinute: int(env, 'RATE_LIMIT_API_PER_MINUTE', 512, 1, 10_000_000),
      loginPerMinute: int(env, 'RATE_LIMIT_LOGIN_PER_MINUTE', 60, 1, 10_000_000),
    },
    sessionDurationSeconds: int(env, 'SESSION_DURATION_SECONDS', 86_400, 60, 31_536_000),
    identityCacheSeconds: int(env, 'IDENTITY_CACHE_SECONDS', 10, 0, 3600),
    corsOrigins: list(env, 'CORS_ORIGINS'),
    trustedProxies: trustedProxies(env),
    env: { ...env },
    bootstrapAdminOnStart: true,
  };
}

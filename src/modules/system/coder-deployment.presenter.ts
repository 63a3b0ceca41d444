import type { AppConfig } from '../../platform/config/app-config';

/**
 * Coder's deployment descriptions of devplane (issue 48 item 3): entitlements for the features devplane
 * has, and devplane's settings as Coder's `serpent` options. Plain functions: the controller renders them.
 */

/** Every feature name Coder's UI knows (`FeatureNames` of `typesGenerated.ts`; the UI crashes on a missing one). */
export const CODER_FEATURE_NAMES = [
  'aibridge',
  'ai_governance_user_limit',
  'access_control',
  'advanced_template_scheduling',
  'appearance',
  'audit_log',
  'boundary',
  'browser_only',
  'connection_log',
  'control_shared_ports',
  'custom_roles',
  'external_provisioner_daemons',
  'external_token_encryption',
  'high_availability',
  'managed_agent_limit',
  'multiple_external_auth',
  'multiple_organizations',
  'scim',
  'service_accounts',
  'task_batch_actions',
  'template_rbac',
  'user_limit',
  'user_role_management',
  'workspace_batch_actions',
  'workspace_external_agent',
  'workspace_prebuilds',
  'workspace_proxy',
] as const;

/**
 * The features devplane has, entitled and enabled: audit log, connection log, groups and template
 * permissions (`template_rbac`), role assignment, several organizations, provisioner keys and daemons,
 * the AI gateway (`aibridge`), prebuilds, workspace sharing (`access_control`), appearance, service
 * accounts and the batch actions (client-side loops over routes devplane serves). Every other feature is
 * what Coder answers without a licence for it: `not_entitled`, disabled.
 */
export const DEVPLANE_FEATURES: ReadonlySet<string> = new Set([
  'aibridge',
  'access_control',
  'appearance',
  'audit_log',
  'connection_log',
  'external_provisioner_daemons',
  'multiple_organizations',
  'service_accounts',
  'task_batch_actions',
  'template_rbac',
  'user_role_management',
  'workspace_batch_actions',
  'workspace_prebuilds',
]);

export interface CoderFeature {
  entitlement: 'entitled' | 'not_entitled';
  enabled: boolean;
}

export function coderEntitlements(now: Date): {
  features: Record<string, CoderFeature>;
  warnings: string[];
  errors: string[];
  has_license: boolean;
  trial: boolean;
  require_telemetry: boolean;
  refreshed_at: string;
} {
  const features: Record<string, CoderFeature> = {};
  for (const name of CODER_FEATURE_NAMES) {
    const has = DEVPLANE_FEATURES.has(name);
    features[name] = { entitlement: has ? 'entitled' : 'not_entitled', enabled: has };
  }
  // `has_license`: Coder's UI shows a feature only when a licence exists; devplane's features need none.
  return {
    features,
    warnings: [],
    errors: [],
    has_license: true,
    trial: false,
    require_telemetry: false,
    refreshed_at: now.toISOString(),
  };
}

interface SerpentGroup {
  name: string;
  yaml: string;
  description: string;
  parent?: SerpentGroup;
}

export interface SerpentOption {
  name: string;
  description: string;
  flag: string;
  env: string;
  yaml: string;
  default: string;
  value: unknown;
  annotations?: Record<string, string>;
  group?: SerpentGroup;
  hidden: boolean;
  value_source: 'default' | 'env';
}

const group = (name: string, yaml: string, description: string, parent?: SerpentGroup): SerpentGroup => ({
  name,
  yaml,
  description,
  ...(parent ? { parent } : {}),
});
const NETWORKING = group('Networking', 'networking', 'Configure how the server is reached.');
const HTTP = group('HTTP', 'http', 'HTTP and the addresses clients use.', NETWORKING);
const TLS = group('TLS', 'tls', 'TLS is terminated in front of devplane (a reverse proxy).', NETWORKING);
const INTROSPECTION = group('Introspection', 'introspection', 'Logging and metrics.');
const LOGGING = group('Logging', 'logging', 'How the server logs.', INTROSPECTION);
const OIDC = group('OIDC', 'oidc', 'OpenID Connect sign-in.');
const GITHUB = group('GitHub', 'github', 'GitHub sign-in (devplane has none).');
const NOTIFICATIONS = group('Notifications', 'notifications', 'How notifications are delivered.');
const EMAIL = group('Email', 'email', 'SMTP delivery.', NOTIFICATIONS);
const WEBHOOK = group('Webhook', 'webhook', 'Webhook delivery.', NOTIFICATIONS);
const STORAGE = group('Storage', 'storage', 'Database, files and blobs.');
const SECURITY = group('Security', 'security', 'Sessions, passwords and limits.');
const AI_GATEWAY = group('AI Gateway', 'aibridge', 'The AI gateway (AI_GATEWAY_* settings).');

/** The environment variables that hold secrets: present, never shown (Coder masks its secret options). */
const SECRET_ENVS = new Set([
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'S3_SECRET_KEY',
  'S3_ACCESS_KEY',
  'SECRETS_KEY',
  'ADMIN_PASSWORD',
  'METRICS_TOKEN',
  'OIDC_CLIENT_SECRET',
  'AI_GATEWAY_PROVIDERS',
]);

/** devplane's settings as Coder's deployment options (`/deployment/config`), secrets masked. */
export function coderDeploymentOptions(config: AppConfig): SerpentOption[] {
  const env = config.env;
  const option = (
    name: string,
    envName: string,
    value: unknown,
    fallback: string,
    groupOf: SerpentGroup,
    description: string,
  ): SerpentOption => {
    const secret = SECRET_ENVS.has(envName);
    const set = env[envName] !== undefined && env[envName] !== '';
    return {
      name,
      description,
      flag: envName.toLowerCase().replace(/_/g, '-'),
      env: envName,
      yaml: envName.toLowerCase(),
      default: fallback,
      value: secret ? '' : value,
      ...(secret ? { annotations: { secret: 'true' } } : {}),
      group: groupOf,
      hidden: false,
      value_source: set ? 'env' : 'default',
    };
  };
  const oidcClientId = env.OIDC_CLIENT_ID ?? '';
  return [
    option(
      'Access URL',
      'PUBLIC_URL',
      config.publicUrl,
      'http://localhost:3000/',
      HTTP,
      'The URL clients use.',
    ),
    option(
      'Wildcard Access URL',
      'WILDCARD_ACCESS_URL',
      wildcardAccessUrl(env),
      '',
      HTTP,
      'Subdomain apps and forwarded ports are served at {app}--{agent}--{workspace}--{owner} under it; unset: path-based only.',
    ),
    option('HTTP Address', 'PORT', `${config.host}:${config.port}`, '0.0.0.0:3000', HTTP, 'Listen address.'),
    option('Trusted Proxies', 'TRUSTED_PROXIES', config.trustedProxies, '', HTTP, 'X-Forwarded-For sources.'),
    option('TLS Enable', 'TLS_ENABLE', false, 'false', TLS, 'TLS ends at the reverse proxy.'),
    option(
      'Secure Auth Cookie',
      'PUBLIC_URL',
      config.publicUrl.startsWith('https:'),
      'false',
      SECURITY,
      'Session cookies are Secure when PUBLIC_URL is https.',
    ),
    option(
      'Disable Owner Workspace Access',
      'OWNER_WORKSPACE_EXEC',
      env.OWNER_WORKSPACE_EXEC === 'false',
      'false',
      SECURITY,
      "Owners may not connect to other users' workspaces.",
    ),
    option(
      'Session Duration',
      'SESSION_DURATION_SECONDS',
      config.sessionDurationSeconds * 1e9,
      String(86_400 * 1e9),
      SECURITY,
      'Lifetime of a sign-in session (ns).',
    ),
    option(
      'Password Login Enabled',
      'PASSWORD_LOGIN_ENABLED',
      config.passwordLoginEnabled,
      'true',
      SECURITY,
      'Sign in with a password.',
    ),
    option(
      'Rate Limit API',
      'RATE_LIMIT_API_PER_MINUTE',
      config.rateLimit.apiPerMinute,
      '512',
      SECURITY,
      'Requests per minute per client.',
    ),
    option('SSH Keygen Algorithm', 'SSH_KEYGEN_ALGORITHM', 'ed25519', 'ed25519', NETWORKING, 'Git SSH keys.'),
    option('Experiments', 'EXPERIMENTS', config.experiments, '', SECURITY, 'Enabled experiments.'),
    option('Log Level', 'LOG_LEVEL', config.logLevel, 'info', LOGGING, 'pino level.'),
    option('Log Format', 'LOG_FORMAT', config.logFormat, 'json', LOGGING, 'json or pretty.'),
    option(
      'Prometheus Enable',
      'METRICS_PORT',
      config.metrics.port !== null,
      'false',
      INTROSPECTION,
      '/metrics.',
    ),
    option('Metrics Token', 'METRICS_TOKEN', '', '', INTROSPECTION, 'Bearer token of /metrics.'),
    option('OIDC Client ID', 'OIDC_CLIENT_ID', oidcClientId, '', OIDC, 'OpenID Connect client id.'),
    option('OIDC Issuer URL', 'OIDC_ISSUER_URL', env.OIDC_ISSUER_URL ?? '', '', OIDC, 'OpenID provider.'),
    option('OIDC Client Secret', 'OIDC_CLIENT_SECRET', '', '', OIDC, 'OpenID Connect client secret.'),
    option('OAuth2 GitHub Client ID', 'GITHUB_CLIENT_ID', '', '', GITHUB, 'devplane has no GitHub sign-in.'),
    option(
      'Notifications: Method',
      'NOTIFICATIONS_METHOD',
      config.notifications.method,
      'smtp',
      NOTIFICATIONS,
      '',
    ),
    option('Notifications: Email: From Address', 'SMTP_FROM', config.smtp.from, '', EMAIL, 'Sender.'),
    option('Notifications: Email: SMTP URL', 'SMTP_URL', '', '', EMAIL, 'Mail transport.'),
    option(
      'Notifications: Webhook: Endpoint',
      'NOTIFICATIONS_WEBHOOK_URL',
      config.notifications.webhookUrl ?? '',
      '',
      WEBHOOK,
      'Webhook receiver.',
    ),
    option('Postgres Connection URL', 'DATABASE_URL', '', '', STORAGE, 'Unset: embedded PGlite.'),
    option('Data Directory', 'DATA_DIR', config.dataDir, './data', STORAGE, 'Repositories and local blobs.'),
    option('Storage Type', 'STORAGE_TYPE', config.storage.type, 'local', STORAGE, 'local or s3.'),
    option('S3 Secret Key', 'S3_SECRET_KEY', '', '', STORAGE, 'S3 secret.'),
    option('Redis URL', 'REDIS_URL', '', '', STORAGE, 'Shared rate-limit storage.'),
    option('Secrets Key', 'SECRETS_KEY', '', '', STORAGE, 'Seals stored secrets.'),
    option('AI Gateway Providers', 'AI_GATEWAY_PROVIDERS', '', '', AI_GATEWAY, 'Model providers.'),
  ];
}

/** `WILDCARD_ACCESS_URL` as set (validated at start-up by the workspaces module's config), else ''. */
export function wildcardAccessUrl(env: Record<string, string | undefined>): string {
  return env.WILDCARD_ACCESS_URL?.trim() ?? '';
}

/** Coder's `wildcard_hostname` of a region: the wildcard host (and port) without scheme, e.g. `*.apps.example.com:8443`. */
export function wildcardHostname(env: Record<string, string | undefined>): string {
  return wildcardAccessUrl(env)
    .replace(/^https?:\/\//i, '')
    .replace(/\/$/, '');
}

/** The few `DeploymentValues` fields Coder's pages read from `config` (the rest come from `options`). */
export function coderDeploymentValues(config: AppConfig): Record<string, unknown> {
  return {
    access_url: config.publicUrl,
    wildcard_access_url: wildcardAccessUrl(config.env),
    experiments: config.experiments,
    external_auth: [],
    disable_owner_workspace_exec: config.env.OWNER_WORKSPACE_EXEC === 'false',
    notifications: {
      method: config.notifications.method,
      email: { from: config.smtp.from, smarthost: '', hello: '' },
      webhook: { endpoint: config.notifications.webhookUrl ?? '' },
    },
  };
}

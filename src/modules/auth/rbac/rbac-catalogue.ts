/**
 * Coder's RBAC resource catalogue (`policy.RBACPermissions` at the reference commit) and the
 * curated external API-key scopes (`GET /api/v2/auth/scopes`). Data only.
 */
const CRUD = ['create', 'delete', 'read', 'update'] as const;
const WORKSPACE_ACTIONS = [
  'application_connect',
  'create',
  'create_agent',
  'delete',
  'delete_agent',
  'read',
  'share',
  'ssh',
  'start',
  'stop',
  'update',
  'update_agent',
] as const;

/** resource type → its actions. 51 resources; `*` is never a resource of a role. */
export const RBAC_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  workspace: WORKSPACE_ACTIONS,
  workspace_dormant: WORKSPACE_ACTIONS,
  template: ['create', 'delete', 'read', 'update', 'use', 'view_insights'],
  user: ['create', 'delete', 'read', 'read_personal', 'update', 'update_personal'],
  assign_org_role: ['assign', 'create', 'delete', 'read', 'unassign', 'update'],
  assign_role: ['assign', 'read', 'unassign'],
  chat: ['create', 'delete', 'read', 'share', 'update'],
  mcp_server_config: ['create', 'delete', 'read', 'share', 'update'],
  api_key: CRUD,
  crypto_key: CRUD,
  group: CRUD,
  organization: CRUD,
  organization_member: CRUD,
  oauth2_app: CRUD,
  oauth2_app_secret: CRUD,
  provisioner_daemon: CRUD,
  system: CRUD,
  tailnet_coordinator: CRUD,
  task: CRUD,
  user_secret: CRUD,
  user_skill: CRUD,
  workspace_proxy: CRUD,
  workspace_build_orchestration: CRUD,
  ai_provider: CRUD,
  ai_gateway_key: CRUD,
  notification_message: CRUD,
  oauth2_app_code_token: ['create', 'delete', 'read'],
  license: ['create', 'delete', 'read'],
  webpush_subscription: ['create', 'delete', 'read'],
  boundary_log: ['create', 'delete', 'read'],
  aibridge_interception: ['create', 'read', 'update'],
  inbox_notification: ['create', 'read', 'update'],
  provisioner_jobs: ['create', 'read', 'update'],
  usage_event: ['create', 'read', 'update'],
  workspace_agent_resource_monitor: ['create', 'read', 'update'],
  boundary_usage: ['delete', 'read', 'update'],
  audit_log: ['create', 'read'],
  file: ['create', 'read'],
  ai_seat: ['create', 'read'],
  connection_log: ['read', 'update'],
  deployment_config: ['read', 'update'],
  idpsync_settings: ['read', 'update'],
  notification_preference: ['read', 'update'],
  notification_template: ['read', 'update'],
  ai_model_price: ['read', 'update'],
  prebuilt_workspace: ['delete', 'update'],
  workspace_agent_devcontainers: ['create'],
  debug_info: ['read'],
  deployment_stats: ['read'],
  group_member: ['read'],
  replicas: ['read'],
};

export const RBAC_RESOURCE_NAMES: readonly string[] = Object.keys(RBAC_RESOURCES);

/** The 55 public scopes of `GET /api/v2/auth/scopes`, pinned, in byte order. */
export const EXTERNAL_SCOPES: readonly string[] = [
  'api_key:*',
  'api_key:create',
  'api_key:delete',
  'api_key:read',
  'api_key:update',
  'coder:all',
  'coder:apikeys.manage_self',
  'coder:application_connect',
  'coder:templates.author',
  'coder:templates.build',
  'coder:workspaces.access',
  'coder:workspaces.create',
  'coder:workspaces.delete',
  'coder:workspaces.operate',
  'file:*',
  'file:create',
  'file:read',
  'organization:*',
  'organization:delete',
  'organization:read',
  'organization:update',
  'task:*',
  'task:create',
  'task:delete',
  'task:read',
  'task:update',
  'template:*',
  'template:create',
  'template:delete',
  'template:read',
  'template:update',
  'template:use',
  'user:*',
  'user:read',
  'user:read_personal',
  'user:update_personal',
  'user_secret:*',
  'user_secret:create',
  'user_secret:delete',
  'user_secret:read',
  'user_secret:update',
  'user_skill:*',
  'user_skill:create',
  'user_skill:delete',
  'user_skill:read',
  'user_skill:update',
  'workspace:*',
  'workspace:application_connect',
  'workspace:create',
  'workspace:delete',
  'workspace:read',
  'workspace:ssh',
  'workspace:start',
  'workspace:stop',
  'workspace:update',
];

/** Legacy names accepted on input and stored canonically. */
export const SCOPE_ALIASES: Readonly<Record<string, string>> = {
  all: 'coder:all',
  application_connect: 'coder:application_connect',
};

/** Canonical name of a requested scope, or null when it is not an external scope. */
export function canonicalExternalScope(scope: string): string | null {
  const canonical = Object.hasOwn(SCOPE_ALIASES, scope) ? SCOPE_ALIASES[scope]! : scope;
  return EXTERNAL_SCOPES.includes(canonical) ? canonical : null;
}

/** The actions of a catalogue resource (own keys only: `constructor` or `toString` are not resources). */
export function resourceActions(type: string): readonly string[] | undefined {
  return Object.hasOwn(RBAC_RESOURCES, type) ? RBAC_RESOURCES[type] : undefined;
}

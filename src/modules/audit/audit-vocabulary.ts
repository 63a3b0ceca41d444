/** Coder's audit actions. */
export const AUDIT_ACTIONS = [
  'create',
  'write',
  'delete',
  'start',
  'stop',
  'login',
  'logout',
  'register',
  'request_password_reset',
  'connect',
  'disconnect',
  'open',
  'close',
] as const;

/** Coder's audited resource types, and devplane's own (workflow rules, repositories, packages). */
export const AUDIT_RESOURCE_TYPES = [
  'template',
  'template_version',
  'user',
  'workspace',
  'workspace_build',
  'git_ssh_key',
  'api_key',
  'group',
  'license',
  'convert_login',
  'health_settings',
  'notifications_settings',
  'prebuilds_settings',
  'workspace_proxy',
  'organization',
  'oauth2_provider_app',
  'oauth2_provider_app_secret',
  'custom_role',
  'organization_member',
  'notification_template',
  'idp_sync_settings_organization',
  'idp_sync_settings_group',
  'idp_sync_settings_role',
  'workspace_agent',
  'workspace_app',
  'task',
  'ai_seat',
  'user_secret',
  'workspace_sharing_settings',
  'workflow_rule',
  'repository',
  'package',
] as const;

const FRIENDLY_ACTIONS: Record<string, string> = {
  create: 'created',
  write: 'updated',
  delete: 'deleted',
  start: 'started',
  stop: 'stopped',
  login: 'logged in',
  logout: 'logged out',
  register: 'registered',
  request_password_reset: 'password reset',
  connect: 'connected',
  disconnect: 'disconnected',
  open: 'opened',
  close: 'closed',
};

const FRIENDLY_TYPES: Record<string, string> = {
  api_key: 'token',
  git_ssh_key: 'git ssh key',
  convert_login: 'login type conversion',
  organization_member: 'organization member',
  user_secret: 'secret',
  workflow_rule: 'workflow rule',
};

/** Coder's description template: `{user} created user {target}`; logins have no target. */
export function describeAuditEntry(entry: {
  action: string;
  resourceType: string;
  statusCode: number;
}): string {
  const verb =
    entry.statusCode >= 400
      ? `unsuccessfully attempted to ${entry.action}`
      : (FRIENDLY_ACTIONS[entry.action] ?? entry.action);
  if (entry.resourceType === 'api_key' && ['login', 'logout', 'register'].includes(entry.action))
    return `{user} ${verb}`;
  const type = FRIENDLY_TYPES[entry.resourceType] ?? entry.resourceType.replace(/_/g, ' ');
  return `{user} ${verb} ${type}${entry.resourceType === 'convert_login' ? ' to' : ''} {target}`;
}

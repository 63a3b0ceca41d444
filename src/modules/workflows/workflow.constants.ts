/** Nextcloud's scope types. */
export const SCOPE_ADMIN = 0;
export const SCOPE_USER = 1;
export type ScopeType = typeof SCOPE_ADMIN | typeof SCOPE_USER;

export const ENTITY_FILE = 'OCA\\WorkflowEngine\\Entity\\File';
export const ENTITY_BRANCH = 'OCA\\Devplane\\Entity\\Branch';
export const ENTITY_PACKAGE = 'OCA\\Devplane\\Entity\\Package';
export const ENTITY_USER = 'OCA\\Devplane\\Entity\\User';

export const OPERATION_ACCESS_CONTROL = 'OCA\\FilesAccessControl\\Operation';
export const OPERATION_NOTIFICATION = 'OCA\\FlowNotifications\\Flow\\Operation';
export const OPERATION_WEBHOOK = 'OCA\\Devplane\\Flow\\WebhookOperation';

export const CHECK_PREFIX = 'OCA\\WorkflowEngine\\Check\\';

/** The seed's spellings and Nextcloud's are both accepted; the stored spelling is returned. */
export const OPERATOR_ALIASES: Record<string, string> = { match: 'matches', '!match': '!matches' };

export function normalizeOperator(operator: string): string {
  return OPERATOR_ALIASES[operator] ?? operator;
}

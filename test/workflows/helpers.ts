import type { TestApp } from '../helpers/test-app';

export const WF = '/ocs/v2.php/apps/workflowengine/api/v1/workflows';
export const CATALOGUE = '/ocs/v2.php/apps/workflowengine/api/v1/catalogue';

export const FILE = 'OCA\\WorkflowEngine\\Entity\\File';
export const BRANCH = 'OCA\\Devplane\\Entity\\Branch';
export const ACCESS = 'OCA\\FilesAccessControl\\Operation';
export const NOTIFY = 'OCA\\FlowNotifications\\Flow\\Operation';
export const WEBHOOK = 'OCA\\Devplane\\Flow\\WebhookOperation';
export const CREATED = 'OCP\\Files\\Events\\Node\\NodeCreatedEvent';
export const UPDATED = 'OCP\\Files\\Events\\Node\\NodeUpdatedEvent';
export const check = (name: string, operator: string, value: string) => ({
  class: `OCA\\WorkflowEngine\\Check\\${name}`,
  operator,
  value,
});

export type Auth = Record<string, string>;

export function bearer(token: string): Auth {
  return { Authorization: `Bearer ${token}` };
}

/** An OCS request with JSON output and the CSRF header. */
export function ocs(
  t: TestApp,
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  auth: Auth,
  body?: unknown,
) {
  let req = t.http()[method](path).query({ format: 'json' }).set('OCS-APIRequest', 'true').set(auth);
  if (body !== undefined) req = req.send(body as object);
  return req;
}

export function notifyRule(overrides: Record<string, unknown> = {}) {
  return {
    class: NOTIFY,
    name: 'Tell me',
    checks: [check('FileName', 'matches', '/\\.pdf$/i')],
    operation: '{"inscription":"A PDF arrived"}',
    entity: FILE,
    events: [CREATED],
    ...overrides,
  };
}

export function accessRule(overrides: Record<string, unknown> = {}) {
  return {
    class: ACCESS,
    name: 'No exe',
    checks: [check('FileName', 'matches', '/\\.exe$/i')],
    operation: 'deny',
    entity: FILE,
    events: [],
    ...overrides,
  };
}

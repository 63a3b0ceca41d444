/**
 * Stable ids of the system notification templates (seeded by this module's migration). Producers
 * emit `notification.requested` with one of these; Coder's ids where Coder has the template.
 */
export const NOTIFICATION_TEMPLATE_IDS = {
  oneTimePasscode: '62f86a30-2330-4b61-a26d-311ff3b608cf',
  testNotification: 'c425f63e-716a-4bf4-ae24-78348f706c3f',
  customNotification: '39b1e189-c857-4b0c-877a-511144c18516',
  userAccountCreated: '4e19c0ac-94e1-4532-9515-d1801aa283b2',
  userAccountDeleted: 'f44d9314-ad03-4bc8-95d0-5cad491da6b6',
  userAccountSuspended: 'b02ddd82-4733-4d02-a2d7-c36f3598997d',
  userAccountActivated: '9f5af851-8408-4e73-a7a1-c6502ba46689',
  yourAccountSuspended: '6a2f0609-9b69-4d36-a989-9f5925b6cbff',
  yourAccountActivated: '1a6a6bea-ee0a-43e2-9e7c-eabdb53730e4',
  /** devplane */
  workflowRuleMatched: '8e00de8c-4ee5-4791-bae4-6aaac24da6c8',
  /** devplane (Gitea `send_notify`) */
  accountRegistration: '91ab9137-9cd5-4e4f-96d7-1cd5f37b7ee2',
  /** devplane (Coder's tasks notify on pause and resume; its template ids are not public at our reference commit) */
  taskPaused: 'd6ae6d7e-0b0b-4d8e-9a52-5b7c6f3f1a01',
  taskResumed: 'd6ae6d7e-0b0b-4d8e-9a52-5b7c6f3f1a02',
} as const;

export type NotificationTemplateKey = keyof typeof NOTIFICATION_TEMPLATE_IDS;

/** Coder's inbox fallback icons (the client maps them to pictures). */
export const FALLBACK_ICONS = {
  account: 'DEFAULT_ICON_ACCOUNT',
  workspace: 'DEFAULT_ICON_WORKSPACE',
  template: 'DEFAULT_ICON_TEMPLATE',
  other: 'DEFAULT_ICON_OTHER',
} as const;

const ACCOUNT_TEMPLATES: ReadonlySet<string> = new Set([
  NOTIFICATION_TEMPLATE_IDS.oneTimePasscode,
  NOTIFICATION_TEMPLATE_IDS.userAccountCreated,
  NOTIFICATION_TEMPLATE_IDS.userAccountDeleted,
  NOTIFICATION_TEMPLATE_IDS.userAccountSuspended,
  NOTIFICATION_TEMPLATE_IDS.userAccountActivated,
  NOTIFICATION_TEMPLATE_IDS.yourAccountSuspended,
  NOTIFICATION_TEMPLATE_IDS.yourAccountActivated,
  NOTIFICATION_TEMPLATE_IDS.accountRegistration,
]);

export function fallbackIcon(templateId: string): string {
  return ACCOUNT_TEMPLATES.has(templateId) ? FALLBACK_ICONS.account : FALLBACK_ICONS.other;
}

/**
 * The system templates as seeded by the first notifications migration (frozen: a later change
 * to a template goes into a new migration). Texts follow Coder's templates at HEAD; Go-template
 * syntax within the subset of rendering/go-template.ts.
 */
export interface SeedTemplate {
  id: string;
  name: string;
  title: string;
  body: string;
  actions: { label: string; url: string }[];
  group: string;
  method: string | null;
  kind: 'system' | 'custom';
  toInbox: boolean;
}

const ACTIVE_USERS = '{{ base_url }}/deployment/users?filter=status%3Aactive';

export const SEED_TEMPLATES: SeedTemplate[] = [
  {
    id: '62f86a30-2330-4b61-a26d-311ff3b608cf',
    name: 'One-Time Passcode',
    title: 'Reset your password for devplane',
    body:
      'Use the link below to reset your password.\n\n' +
      'Your one-time passcode is **{{.Labels.one_time_passcode}}**.\n\n' +
      'If you did not make this request, you can ignore this message.',
    actions: [
      {
        label: 'Reset password',
        url: '{{ base_url }}/reset-password/change?otp={{.Labels.one_time_passcode}}&email={{.UserEmail | urlquery}}',
      },
    ],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: false,
  },
  {
    id: 'c425f63e-716a-4bf4-ae24-78348f706c3f',
    name: 'Test Notification',
    title: 'A test notification',
    body: 'This is a test notification.',
    actions: [
      { label: 'View notification settings', url: '{{ base_url }}/deployment/notifications?tab=settings' },
    ],
    group: 'Notification Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: '39b1e189-c857-4b0c-877a-511144c18516',
    name: 'Custom Notification',
    title: '{{.Labels.custom_title}}',
    body: '{{.Labels.custom_message}}',
    actions: [],
    group: 'Custom Events',
    method: null,
    kind: 'custom',
    toInbox: true,
  },
  {
    id: '4e19c0ac-94e1-4532-9515-d1801aa283b2',
    name: 'User account created',
    title: 'User account "{{.Labels.created_account_name}}" created',
    body:
      'New user account **{{.Labels.created_account_name}}** has been created.\n\n' +
      'This new user account was created {{if .Labels.created_account_user_name}}for **{{.Labels.created_account_user_name}}** {{end}}by **{{.Labels.initiator}}**.',
    actions: [{ label: 'View accounts', url: ACTIVE_USERS }],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: 'f44d9314-ad03-4bc8-95d0-5cad491da6b6',
    name: 'User account deleted',
    title: 'User account "{{.Labels.deleted_account_name}}" deleted',
    body:
      'User account **{{.Labels.deleted_account_name}}** has been deleted.\n\n' +
      'The deleted account {{if .Labels.deleted_account_user_name}}belonged to **{{.Labels.deleted_account_user_name}}** and {{end}}was deleted by **{{.Labels.initiator}}**.',
    actions: [{ label: 'View accounts', url: ACTIVE_USERS }],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: 'b02ddd82-4733-4d02-a2d7-c36f3598997d',
    name: 'User account suspended',
    title: 'User account "{{.Labels.suspended_account_name}}" suspended',
    body:
      'User account **{{.Labels.suspended_account_name}}** has been suspended.\n\n' +
      'The account {{if .Labels.suspended_account_user_name}}belongs to **{{.Labels.suspended_account_user_name}}** and it {{end}}was suspended by **{{.Labels.initiator}}**.',
    actions: [
      { label: 'View suspended accounts', url: '{{ base_url }}/deployment/users?filter=status%3Asuspended' },
    ],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: '9f5af851-8408-4e73-a7a1-c6502ba46689',
    name: 'User account activated',
    title: 'User account "{{.Labels.activated_account_name}}" activated',
    body:
      'User account **{{.Labels.activated_account_name}}** has been activated.\n\n' +
      'The account {{if .Labels.activated_account_user_name}}belongs to **{{.Labels.activated_account_user_name}}** and it {{ end }}was activated by **{{.Labels.initiator}}**.',
    actions: [{ label: 'View accounts', url: ACTIVE_USERS }],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: '6a2f0609-9b69-4d36-a989-9f5925b6cbff',
    name: 'Your account has been suspended',
    title: 'Your account "{{.Labels.suspended_account_name}}" has been suspended',
    body: 'Your account **{{.Labels.suspended_account_name}}** has been suspended by **{{.Labels.initiator}}**.',
    actions: [],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: '1a6a6bea-ee0a-43e2-9e7c-eabdb53730e4',
    name: 'Your account has been activated',
    title: 'Your account "{{.Labels.activated_account_name}}" has been activated',
    body: 'Your account **{{.Labels.activated_account_name}}** has been activated by **{{.Labels.initiator}}**.',
    actions: [{ label: 'Open devplane', url: '{{ base_url }}' }],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: true,
  },
  {
    id: '8e00de8c-4ee5-4791-bae4-6aaac24da6c8',
    name: 'Workflow rule matched',
    title: 'Workflow rule "{{.Labels.rule_name}}" matched',
    body:
      '{{if .Labels.inscription}}{{.Labels.inscription}}\n\n{{end}}' +
      'Event **{{.Labels.event}}** on {{.Labels.subject}}{{if .Labels.actor}} by **{{.Labels.actor}}**{{end}}.',
    actions: [],
    group: 'Workflow Events',
    method: 'inbox',
    kind: 'system',
    toInbox: true,
  },
  {
    id: '91ab9137-9cd5-4e4f-96d7-1cd5f37b7ee2',
    name: 'Account registration',
    title: 'Welcome to devplane',
    body: 'Your account **{{.Labels.username}}** has been created. Sign in at {{ base_url }}.',
    actions: [],
    group: 'User Events',
    method: null,
    kind: 'system',
    toInbox: false,
  },
];

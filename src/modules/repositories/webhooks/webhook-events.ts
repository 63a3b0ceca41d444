/**
 * Gitea's hook events (modules/webhook/type.go, routers/api/v1/utils/hook.go): the flags a hook
 * stores, how a request's `events` list sets them, and the `X-Gitea-Event` of each event type.
 */

/** The flags, in the order Gitea lists them (`Hook.events`). */
export const HOOK_EVENT_FLAGS = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issue_assign',
  'issue_label',
  'issue_milestone',
  'issue_comment',
  'pull_request',
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
  'pull_request_sync',
  'pull_request_review_request',
  'wiki',
  'repository',
  'release',
] as const;
export type HookEventFlag = (typeof HOOK_EVENT_FLAGS)[number];

const ISSUE_FLAGS: HookEventFlag[] = ['issue_assign', 'issue_label', 'issue_milestone', 'issue_comment'];
const PULL_FLAGS: HookEventFlag[] = [
  'pull_request_assign',
  'pull_request_label',
  'pull_request_milestone',
  'pull_request_comment',
  'pull_request_review_request',
  'pull_request_sync',
];
const REVIEW_FLAGS: HookEventFlag[] = [
  'pull_request_review_approved',
  'pull_request_review_rejected',
  'pull_request_review_comment',
];

/**
 * The flags a request's `events` list sets, as Gitea's addHook/editHook: names compared
 * case-insensitively; `issues` sets every issue flag (`issues_only` only the first), `pull_request`
 * every pull request flag (`pull_request_only` only the first), `pull_request_review` the three review
 * flags; an empty list means `push`. Unknown names are ignored, as in Gitea.
 */
export function hookEventFlags(events: string[] | undefined): HookEventFlag[] {
  const given = new Set((events?.length ? events : ['push']).map((event) => event.toLowerCase()));
  const flags = new Set<HookEventFlag>();
  for (const flag of HOOK_EVENT_FLAGS) if (given.has(flag)) flags.add(flag);
  // `issues` / `pull_request` as names set the "only" flag too (Gitea: issuesHook(events, "issues_only")).
  if (!given.has('issues') && !given.has('issues_only')) flags.delete('issues');
  else flags.add('issues');
  if (given.has('issues')) ISSUE_FLAGS.forEach((flag) => flags.add(flag));
  if (!given.has('pull_request') && !given.has('pull_request_only')) flags.delete('pull_request');
  else flags.add('pull_request');
  if (given.has('pull_request')) PULL_FLAGS.forEach((flag) => flags.add(flag));
  if (given.has('pull_request') || given.has('pull_request_review'))
    REVIEW_FLAGS.forEach((flag) => flags.add(flag));
  return HOOK_EVENT_FLAGS.filter((flag) => flags.has(flag));
}

/** The event types devplane delivers (Gitea's HookEventType values). */
export type HookEventType =
  | 'create'
  | 'delete'
  | 'push'
  | 'issues'
  | 'issue_comment'
  | 'pull_request'
  | 'pull_request_sync'
  | 'pull_request_comment'
  | 'release';

/** `X-Gitea-Event` of an event type (Gitea's HookEventType.Event()). */
export function hookEventHeader(type: HookEventType): string {
  switch (type) {
    case 'pull_request_sync':
      return 'pull_request';
    case 'pull_request_comment':
      return 'issue_comment';
    default:
      return type;
  }
}

/** Whether a hook with these flags takes an event of this type. */
export function hookWants(flags: string[], type: HookEventType): boolean {
  return flags.includes(type);
}

/** Hook types Gitea knows (CreateHookOption.type); devplane delivers `gitea` and `gogs` (the same payloads). */
export const GITEA_HOOK_TYPES = [
  'dingtalk',
  'discord',
  'gitea',
  'gogs',
  'msteams',
  'slack',
  'telegram',
  'feishu',
  'wechatwork',
  'packagist',
];
export const DELIVERED_HOOK_TYPES = ['gitea', 'gogs'];

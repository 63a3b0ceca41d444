import { createHash } from 'node:crypto';
import { renderTemplate, type TemplateContext } from '../rendering/go-template';
import type { NotificationTemplate, TemplateAction } from '../entities/notification-template.entity';
import { wellFormed } from '../../../platform/text/well-formed';

/** The stored message payload (Coder's `types.MessagePayload`, version 1.2). */
export interface MessagePayload {
  _version: '1.2';
  notification_name: string;
  notification_template_id: string;
  user_id: string;
  user_email: string;
  user_name: string;
  user_username: string;
  actions: TemplateAction[];
  labels: Record<string, string>;
  data: Record<string, unknown> | null;
  targets: string[] | null;
}

/** Label values are escaped (Markdown and HTML specials → entities) except these free-text ones. */
const UNESCAPED_LABELS = new Set(['custom_title', 'custom_message']);
const ESCAPES: Record<string, string> = {
  '[': '&#91;',
  ']': '&#93;',
  '(': '&#40;',
  ')': '&#41;',
  '*': '&#42;',
  _: '&#95;',
  '`': '&#96;',
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
};

export function escapeLabel(value: string): string {
  let out = '';
  for (const char of value) out += ESCAPES[char] ?? char;
  return out;
}

export function escapeLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels).map(([key, value]) => {
      const text = wellFormed(String(value));
      return [wellFormed(key), UNESCAPED_LABELS.has(key) ? text : escapeLabel(text)];
    }),
  );
}

/** The template's dot: Go-side field names over the payload. */
export function templateContext(payload: MessagePayload, baseUrl: string): TemplateContext {
  return {
    baseUrl,
    data: {
      NotificationName: payload.notification_name,
      NotificationTemplateID: payload.notification_template_id,
      UserID: payload.user_id,
      UserEmail: payload.user_email,
      UserName: payload.user_name,
      UserUsername: payload.user_username,
      Actions: payload.actions,
      Labels: payload.labels,
      Data: payload.data ?? {},
      Targets: payload.targets ?? [],
    },
  };
}

/** JSON with object keys sorted, so label order never changes a hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Same template, user, method, payload and targets on the same UTC day = the same message. */
export function dedupeHash(
  templateId: string,
  userUuid: string,
  method: string,
  payload: MessagePayload,
  targets: string[],
  now: Date,
): string {
  const day = now.toISOString().slice(0, 10);
  return createHash('md5')
    .update([templateId, userUuid, method, canonicalJson(payload), targets.join(','), day].join(':'))
    .digest('hex');
}

/** A message's title and body as Markdown: the template's text with the payload's values. */
export function renderMarkdown(
  payload: MessagePayload,
  template: Pick<NotificationTemplate, 'titleTemplate' | 'bodyTemplate'>,
  baseUrl: string,
): { titleMarkdown: string; bodyMarkdown: string } {
  const context = templateContext(payload, baseUrl);
  return {
    titleMarkdown: renderTemplate(template.titleTemplate, context),
    bodyMarkdown: renderTemplate(template.bodyTemplate, context),
  };
}

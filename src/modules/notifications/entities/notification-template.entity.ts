import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

export type NotificationMethod = 'smtp' | 'webhook' | 'inbox';
export type TemplateKind = 'system' | 'custom';

export interface TemplateAction {
  label: string;
  url: string;
}

/** A notification template (Coder `notification_templates`); system rows are seeded with stable UUIDs. */
@Entity({ name: 'notification_templates' })
@Check('CHK_notification_templates_method', `"method" IS NULL OR "method" IN ('smtp', 'webhook', 'inbox')`)
@Check('CHK_notification_templates_kind', `"kind" IN ('system', 'custom')`)
export class NotificationTemplate {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'text', unique: true })
  name: string;

  @Column({ name: 'title_template', type: 'text' })
  titleTemplate: string;

  @Column({ name: 'body_template', type: 'text' })
  bodyTemplate: string;

  /** Raw (unrendered) actions: `[{label, url}]`, both Go-style templates. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  actions: TemplateAction[];

  @Column({ name: 'group', type: 'text', nullable: true })
  group: string | null;

  /** NULL = the deployment's default method. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  method: NotificationMethod | null;

  @Column({ type: 'varchar', length: 16, default: 'system' })
  kind: TemplateKind;

  @Column({ name: 'enabled_by_default', type: 'boolean', default: true })
  enabledByDefault: boolean;

  /** devplane: whether a message of this template also goes to the inbox. */
  @Column({ name: 'to_inbox', type: 'boolean', default: true })
  toInbox: boolean;

  /** devplane: inbox icon; '' = the fallback icon of the template's family. */
  @Column({ type: 'text', default: '' })
  icon: string;
}

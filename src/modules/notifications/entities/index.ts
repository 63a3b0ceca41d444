import { InboxCounter } from './inbox-counter.entity';
import { InboxNotification } from './inbox-notification.entity';
import { NotificationMessage } from './notification-message.entity';
import { NotificationPreference } from './notification-preference.entity';
import { NotificationTemplate } from './notification-template.entity';

export const NOTIFICATIONS_ENTITIES: Function[] = [
  NotificationTemplate,
  NotificationMessage,
  NotificationPreference,
  InboxNotification,
  InboxCounter,
];

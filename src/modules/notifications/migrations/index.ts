import { Notifications1795267785153 } from './1795267785153-Notifications';
import { TaskNotificationTemplates1795750200000 } from './1795750200000-TaskNotificationTemplates';
import { InboxCounters1796677772405 } from './1796677772405-InboxCounters';

export const NOTIFICATIONS_MIGRATIONS: Function[] = [
  Notifications1795267785153,
  TaskNotificationTemplates1795750200000,
  InboxCounters1796677772405,
];

import { Notifications1795267785153 } from './1795267785153-Notifications';
import { TaskNotificationTemplates1795750200000 } from './1795750200000-TaskNotificationTemplates';

export const NOTIFICATIONS_MIGRATIONS: Function[] = [
  Notifications1795267785153,
  TaskNotificationTemplates1795750200000,
];

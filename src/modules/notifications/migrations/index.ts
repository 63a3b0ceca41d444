import { Notifications1795267785153 } from './1795267785153-Notifications';

export const NOTIFICATIONS_MIGRATIONS: Function[] = [Notifications1795267785153];

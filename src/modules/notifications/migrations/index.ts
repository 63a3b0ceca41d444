export const NOTIFICATIONS_MIGRATIONS: Function[] = [];

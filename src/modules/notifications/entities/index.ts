export const NOTIFICATIONS_ENTITIES: Function[] = [];

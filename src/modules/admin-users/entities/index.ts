export const ADMIN_USERS_ENTITIES: Function[] = [];

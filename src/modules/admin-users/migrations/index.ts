export const ADMIN_USERS_MIGRATIONS: Function[] = [];

export const AUTH_MIGRATIONS: Function[] = [];

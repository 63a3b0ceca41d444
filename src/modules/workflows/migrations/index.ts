export const WORKFLOWS_MIGRATIONS: Function[] = [];

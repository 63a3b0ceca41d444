export const AUTH_ENTITIES: Function[] = [];

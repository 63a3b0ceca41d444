export const WORKFLOWS_ENTITIES: Function[] = [];

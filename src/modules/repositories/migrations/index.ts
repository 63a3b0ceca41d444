import { Repositories1795473797497 } from './1795473797497-Repositories';

export const REPOSITORIES_MIGRATIONS: Function[] = [Repositories1795473797497];

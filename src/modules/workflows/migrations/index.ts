import { Rules1795267753446 } from './1795267753446-Rules';

export const WORKFLOWS_MIGRATIONS: Function[] = [Rules1795267753446];

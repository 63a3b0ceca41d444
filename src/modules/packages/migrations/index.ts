import { Packages1795731328088 } from './1795731328088-Packages';

export const PACKAGES_MIGRATIONS: Function[] = [Packages1795731328088];

import { Workspaces1795750043624 } from './1795750043624-Workspaces';

export const WORKSPACES_MIGRATIONS: Function[] = [Workspaces1795750043624];

import { AuthTables1795267831370 } from './1795267831370-AuthTables';

export const AUTH_MIGRATIONS: Function[] = [AuthTables1795267831370];

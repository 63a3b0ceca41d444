import { Initial1795267388733 } from './1795267388733-Initial';

export const IDENTITY_MIGRATIONS: Function[] = [Initial1795267388733];

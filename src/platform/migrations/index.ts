import { Jobs1795473107957 } from './1795473107957-Jobs';

export const PLATFORM_MIGRATIONS: Function[] = [Jobs1795473107957];

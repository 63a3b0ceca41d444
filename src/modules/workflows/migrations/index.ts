import { Rules1795267753446 } from './1795267753446-Rules';
import { EventReceipts1795935335595 } from './1795935335595-EventReceipts';

export const WORKFLOWS_MIGRATIONS: Function[] = [Rules1795267753446, EventReceipts1795935335595];

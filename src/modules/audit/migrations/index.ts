import { AuditLogs1795740721172 } from './1795740721172-AuditLogs';

export const AUDIT_MIGRATIONS: Function[] = [AuditLogs1795740721172];

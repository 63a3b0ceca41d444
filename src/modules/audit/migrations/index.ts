import { AuditLogs1795739023781 } from './1795739023781-AuditLogs';

export const AUDIT_MIGRATIONS: Function[] = [AuditLogs1795739023781];

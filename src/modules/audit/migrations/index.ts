import { AuditLogs1795740721172 } from './1795740721172-AuditLogs';
import { AuditActionTimeIndex1796690532550 } from './1796690532550-AuditActionTimeIndex';

export const AUDIT_MIGRATIONS: Function[] = [AuditLogs1795740721172, AuditActionTimeIndex1796690532550];

import { type Env, int } from '../../platform/config/app-config';

/** Settings of the audit module (README.md in this folder), validated at boot. */
export interface AuditConfig {
  /** `AUDIT_COUNT_CAP`: Coder stops counting matching entries here (`count_cap` in the response). */
  countCap: number;
}

export const AUDIT_CONFIG = Symbol('AUDIT_CONFIG');

export function loadAuditConfig(env: Env): AuditConfig {
  return { countCap: int(env, 'AUDIT_COUNT_CAP', 2000, 1, 100_000_000) };
}

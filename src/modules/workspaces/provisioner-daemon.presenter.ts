import type { ProvisionerDaemonDto } from './dto/workspaces.dto';
import { BUILT_IN_KEY_ID, BUILT_IN_KEY_NAME, daemonStatus } from './provisioner-daemons.service';
import type { ProvisionerDaemonRow } from './repositories/provisioner-daemons.repository';

/** Coder's `ProvisionerDaemon` of a registry row (`organizationId`: the organization it is listed for). */
export function presentDaemon(
  row: ProvisionerDaemonRow,
  organizationId: string,
  now: number,
): ProvisionerDaemonDto {
  return {
    id: row.id,
    organization_id: row.organization_id ?? organizationId,
    key_id: row.key_id ?? BUILT_IN_KEY_ID,
    created_at: new Date(row.created_at).toISOString(),
    last_seen_at: new Date(row.last_seen_at).toISOString(),
    name: row.name,
    version: row.version,
    api_version: '1.0',
    provisioners: ['devplane'],
    tags: row.tags,
    key_name: row.key_id ? row.key_name : BUILT_IN_KEY_NAME,
    status: daemonStatus(row, now),
    current_job: row.current_job,
    previous_job: row.previous_job,
  };
}

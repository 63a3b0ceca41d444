import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DEVPLANE_VERSION } from '../../platform/build-info';
import {
  type ProvisionerDaemonRow,
  ProvisionerDaemonsRepository,
} from './repositories/provisioner-daemons.repository';

/** A daemon not seen for this long is `offline` and no longer counts as able to take a job (Coder: 90 s). */
export const PROVISIONER_STALE_MS = 90_000;
/** Tags every daemon carries (Coder's defaults for an organization-scoped daemon). */
export const DEFAULT_DAEMON_TAGS: Readonly<Record<string, string>> = { owner: '', scope: 'organization' };
/** Coder's key id and name for daemons inside the server. */
export const BUILT_IN_KEY_ID = '00000000-0000-0000-0000-000000000001';
export const BUILT_IN_KEY_NAME = 'built-in';

/** Daemons not seen for a week are forgotten (Coder's purge), checked at most once an hour per instance. */
export const PROVISIONER_DAEMON_RETENTION_MS = 7 * 24 * 3600 * 1000;
const PURGE_EVERY_MS = 3600 * 1000;

export type DaemonStatus = 'offline' | 'idle' | 'busy';

/** Coder's MatchedProvisioners. */
export interface MatchedProvisioners {
  count: number;
  available: number;
  most_recently_seen: string | null;
}

/** A daemon's status: offline when not seen within the stale interval, else busy with a running job, else idle. */
export function daemonStatus(
  daemon: Pick<ProvisionerDaemonRow, 'last_seen_at' | 'current_job'>,
  now: number,
): DaemonStatus {
  if (now - new Date(daemon.last_seen_at).getTime() > PROVISIONER_STALE_MS) return 'offline';
  return daemon.current_job ? 'busy' : 'idle';
}

/**
 * What the matching daemons say about a new job (pure: unit-tested): `count` the daemons seen within the stale
 * interval, `available` those of them without a running job, `most_recently_seen` the latest sighting of any
 * matching daemon, stale ones included (null when none matched), as Coder computes MatchedProvisioners.
 */
export function matchedProvisioners(
  daemons: { last_seen_at: Date; busy: boolean }[],
  now: number,
): MatchedProvisioners {
  let count = 0;
  let available = 0;
  let latest: number | null = null;
  for (const daemon of daemons) {
    const seen = new Date(daemon.last_seen_at).getTime();
    if (latest === null || seen > latest) latest = seen;
    if (now - seen > PROVISIONER_STALE_MS) continue;
    count++;
    if (!daemon.busy) available++;
  }
  return { count, available, most_recently_seen: latest === null ? null : new Date(latest).toISOString() };
}

/** The provisioner daemon registry: daemons report themselves when they poll; readers list and match them. */
@Injectable()
export class ProvisionerDaemonsService {
  private readonly logger = new Logger(ProvisionerDaemonsService.name);
  private lastPurge = 0;

  constructor(private readonly daemons: ProvisionerDaemonsRepository) {}

  /** Records a poll of the daemon (best effort: a failed write is logged, the poll goes on). */
  async seen(daemon: {
    workerId: string;
    organizationId: string | null;
    keyId?: string | null;
    name: string;
    tags?: Record<string, string>;
  }): Promise<void> {
    try {
      await this.daemons.seen({
        workerId: daemon.workerId,
        organizationId: daemon.organizationId,
        keyId: daemon.keyId ?? null,
        name: daemon.name,
        version: `v${DEVPLANE_VERSION}`,
        tags: { ...DEFAULT_DAEMON_TAGS, ...(daemon.tags ?? {}) },
      });
      if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
        this.lastPurge = Date.now();
        await this.daemons.purgeStale(PROVISIONER_DAEMON_RETENTION_MS);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record the provisioner daemon');
    }
  }

  /** A daemon reported on its job (best effort). */
  async touch(workerId: string): Promise<void> {
    await this.daemons.touch(workerId).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'could not record the provisioner daemon');
    });
  }

  ofOrganization(
    organizationId: string,
    filters: { ids: string[]; tags: Record<string, string> | undefined },
  ): Promise<ProvisionerDaemonRow[]> {
    return this.daemons.ofOrganization(organizationId, filters);
  }

  async matched(
    organizationId: string,
    tags: Record<string, string>,
    manager?: EntityManager,
  ): Promise<MatchedProvisioners> {
    return matchedProvisioners(await this.daemons.matching(manager, organizationId, tags), Date.now());
  }
}

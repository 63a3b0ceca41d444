import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** A daemon row with what its presentation needs: its key's name and its current and previous jobs. */
export interface ProvisionerDaemonRow {
  id: string;
  worker_id: string;
  organization_id: string | null;
  key_id: string | null;
  key_name: string | null;
  name: string;
  version: string;
  tags: Record<string, string>;
  created_at: Date;
  last_seen_at: Date;
  current_job: DaemonJobRow | null;
  previous_job: DaemonJobRow | null;
}

export interface DaemonJobRow {
  id: string;
  status: string;
  template_name: string;
  template_display_name: string;
  template_icon: string;
}

/** The job columns a daemon's current and previous job show (Coder's ProvisionerDaemonJob). */
const JOB_JSON = `json_build_object('id', j.id, 'status', j.status,
  'template_name', COALESCE(t.name, ''), 'template_display_name', COALESCE(t.display_name, ''),
  'template_icon', COALESCE(t.icon, ''))`;
const JOB_TEMPLATE = `LEFT JOIN workspace_builds b ON b.id::text = j.input->>'workspace_build_id'
  LEFT JOIN template_versions v ON v.id::text = COALESCE(j.input->>'template_version_id', b.template_version_id::text)
  LEFT JOIN templates t ON t.id = v.template_id`;

/**
 * The SQL of the provisioner daemon registry (`provisioner_daemons`): a daemon's row is written (upserted by its
 * worker id) each time it polls for jobs; readers ask for an organization's daemons (built-in ones serve every
 * organization) and for the daemons that match a job's tags.
 */
@Injectable()
export class ProvisionerDaemonsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async seen(daemon: {
    workerId: string;
    organizationId: string | null;
    keyId: string | null;
    name: string;
    version: string;
    tags: Record<string, string>;
  }): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO provisioner_daemons (worker_id, organization_id, key_id, name, version, tags, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (worker_id) DO UPDATE SET name = EXCLUDED.name, version = EXCLUDED.version,
         tags = EXCLUDED.tags, last_seen_at = now()`,
      [
        daemon.workerId,
        daemon.organizationId,
        daemon.keyId,
        daemon.name,
        daemon.version,
        JSON.stringify(daemon.tags),
      ],
    );
  }

  /** Forgets the daemons not seen for `olderThanMs` (Coder purges them after a week). */
  async purgeStale(olderThanMs: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM provisioner_daemons WHERE last_seen_at < now() - ($1::bigint * interval '1 millisecond')`,
      [olderThanMs],
    );
  }

  /** A report from a daemon running a job: it is still there. */
  async touch(workerId: string): Promise<void> {
    await this.dataSource.query('UPDATE provisioner_daemons SET last_seen_at = now() WHERE worker_id = $1', [
      workerId,
    ]);
  }

  /**
   * The daemons that serve the organization (its own and the built-in ones), newest first, narrowed by ids and by
   * tags they must carry (`tags @>`), each with its key's name, its running job and the last job it finished.
   */
  async ofOrganization(
    organizationId: string,
    filters: { ids: string[]; tags: Record<string, string> | undefined },
  ): Promise<ProvisionerDaemonRow[]> {
    return (await this.dataSource.query(
      `SELECT d.id, d.worker_id, d.organization_id, d.key_id, k.name AS key_name, d.name, d.version, d.tags,
              d.created_at, d.last_seen_at,
              (SELECT ${JOB_JSON} FROM provisioner_jobs j ${JOB_TEMPLATE}
                WHERE j.worker_id = d.worker_id AND j.status IN ('running', 'canceling')
                ORDER BY j.started_at DESC NULLS LAST LIMIT 1) AS current_job,
              (SELECT ${JOB_JSON} FROM provisioner_jobs j ${JOB_TEMPLATE}
                WHERE j.worker_id = d.worker_id AND j.status IN ('succeeded', 'failed', 'canceled')
                ORDER BY j.completed_at DESC NULLS LAST LIMIT 1) AS previous_job
         FROM provisioner_daemons d LEFT JOIN provisioner_keys k ON k.id = d.key_id
        WHERE (d.organization_id = $1 OR d.organization_id IS NULL)
          AND (cardinality($2::uuid[]) = 0 OR d.id = ANY($2::uuid[]))
          AND ($3::jsonb IS NULL OR d.tags @> $3::jsonb)
        ORDER BY d.created_at DESC`,
      [organizationId, filters.ids, filters.tags === undefined ? null : JSON.stringify(filters.tags)],
    )) as ProvisionerDaemonRow[];
  }

  /**
   * The daemons that could take a job of the organization with these tags (the job's tags a subset of the
   * daemon's): their last sighting and whether each runs a job now.
   */
  async matching(
    manager: EntityManager | undefined,
    organizationId: string,
    tags: Record<string, string>,
  ): Promise<{ last_seen_at: Date; busy: boolean }[]> {
    return ((await (manager ?? this.dataSource).query(
      `SELECT d.last_seen_at, EXISTS (SELECT 1 FROM provisioner_jobs j
                WHERE j.worker_id = d.worker_id AND j.status IN ('running', 'canceling')) AS busy
         FROM provisioner_daemons d
        WHERE (d.organization_id = $1 OR d.organization_id IS NULL) AND d.tags @> $2::jsonb`,
      [organizationId, JSON.stringify(tags)],
    )) ?? []) as { last_seen_at: Date; busy: boolean }[];
  }
}

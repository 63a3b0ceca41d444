import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type ChartStatusName = 'active' | 'dormant' | 'suspended';

/** One day of the chart: the count of users in a status at the end of that local day. */
export interface StatusCountRow {
  status: ChartStatusName;
  date: Date | string;
  count: number;
}

/** The user status chart's statement over `user_status_changes` (UserStatusChartService). */
@Injectable()
export class UserStatusChartRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Each status period [valid_from, valid_to) counts on the local days from the one containing
   * valid_from up to (not including) the one containing valid_to: a running sum of +1/-1 per day.
   */
  statusCounts(firstDay: string, lastDay: string, zone: string): Promise<StatusCountRow[]> {
    return this.dataSource.query(
      `WITH bounds AS (SELECT $1::date AS first_day, $2::date AS last_day, $3::text AS tz),
       periods AS (
         SELECT new_status AS status, changed_at AS valid_from,
                lead(changed_at) OVER (PARTITION BY user_id ORDER BY changed_at, id) AS valid_to
           FROM user_status_changes),
       spans AS (
         SELECT p.status, greatest((p.valid_from AT TIME ZONE b.tz)::date, b.first_day) AS a,
                (p.valid_to AT TIME ZONE b.tz)::date AS z
           FROM periods p, bounds b
          WHERE p.status IN ('active', 'dormant', 'suspended')
            AND (p.valid_from AT TIME ZONE b.tz)::date <= b.last_day),
       deltas AS (
         SELECT status, a AS day, 1 AS delta FROM spans WHERE z IS NULL OR z > a
         UNION ALL
         SELECT s.status, s.z, -1 FROM spans s, bounds b WHERE s.z IS NOT NULL AND s.z > s.a AND s.z <= b.last_day),
       daily AS (SELECT status, day, sum(delta) AS delta FROM deltas GROUP BY status, day),
       days AS (SELECT d::date AS day FROM bounds b, generate_series(b.first_day, b.last_day, interval '1 day') d),
       statuses AS (SELECT unnest(ARRAY['active', 'dormant', 'suspended']) AS status)
       SELECT s.status, (d.day::timestamp AT TIME ZONE b.tz) AS date,
              (sum(coalesce(x.delta, 0)) OVER (PARTITION BY s.status ORDER BY d.day))::int AS count
         FROM statuses s CROSS JOIN days d CROSS JOIN bounds b
         LEFT JOIN daily x ON x.status = s.status AND x.day = d.day
        ORDER BY s.status, d.day`,
      [firstDay, lastDay, zone],
    );
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { BadRequestError, InvalidError } from '../../../platform/errors/domain-error';

export type ChartStatus = 'active' | 'dormant' | 'suspended';
export const CHART_STATUSES: readonly ChartStatus[] = ['active', 'dormant', 'suspended'];
/** Coder's window: sixty days before the start of the current local day, up to the next hour. */
const WINDOW_DAYS = 60;

export interface StatusCount {
  /** Local midnight of the day, as an instant. */
  date: Date;
  count: number;
}

/** The IANA zone of Coder's `timezone` / deprecated `tz_offset` parameters (`Etc/GMT∓N` for an offset). */
export function chartTimeZone(query: { timezone?: string; tz_offset?: string; interval?: string }): string {
  const errors: { field: string; detail: string }[] = [];
  const integer = (name: 'tz_offset' | 'interval'): number => {
    const raw = query[name];
    if (raw === undefined || raw === '') return 0;
    if (!/^[+-]?\d+$/.test(raw)) {
      errors.push({
        field: name,
        detail: `Query param "${name}" must be a valid integer: strconv.ParseInt: parsing "${raw}": invalid syntax`,
      });
      return 0;
    }
    return Number(raw);
  };
  const offset = integer('tz_offset');
  integer('interval'); // deprecated and ignored, as Coder does
  if (errors.length > 0)
    throw new InvalidError('Query parameters have invalid values.', {
      code: 'INVALID_QUERY',
      fields: errors,
    });
  const timezone = query.timezone ?? '';
  if (timezone !== '' && offset !== 0)
    throw new BadRequestError('Provide either "timezone" or "tz_offset", not both.', { code: 'TZ_BOTH' });
  const zone =
    timezone !== '' ? timezone : offset > 0 ? `Etc/GMT-${offset}` : offset < 0 ? `Etc/GMT+${-offset}` : 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new BadRequestError('Invalid timezone.', {
      detail: `unknown time zone ${zone}`,
      code: 'BAD_TIMEZONE',
    });
  }
  return zone;
}

/** The local calendar date of an instant in a zone, as `YYYY-MM-DD`. */
function localDate(instant: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}

/**
 * Coder's user status chart (`GET /api/v2/insights/user-status-counts`): for each calendar day of
 * the window in the caller's zone, how many users were active, dormant and suspended at the end of
 * that day, from the status history the `users` trigger writes. Days step by calendar day in the
 * zone (PostgreSQL converts each instant to its local date), so a 23- or 25-hour day is one day.
 */
@Injectable()
export class UserStatusChartService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async counts(zone: string, now = new Date()): Promise<Record<ChartStatus, StatusCount[]>> {
    const nextHour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 + 3_600_000);
    const lastDay = localDate(nextHour, zone);
    const first = new Date(`${lastDay}T00:00:00Z`);
    first.setUTCDate(first.getUTCDate() - WINDOW_DAYS);
    const firstDay = first.toISOString().slice(0, 10);
    // Each status period [valid_from, valid_to) counts on the local days from the one containing
    // valid_from up to (not including) the one containing valid_to: a running sum of +1/-1 per day.
    const rows = (await this.dataSource
      .query(
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
      )
      .catch((error: unknown) => {
        // A zone the runtime knows and this PostgreSQL does not (older tz data): the caller's input, not a 500.
        if ((error as { driverError?: { code?: string } }).driverError?.code === '22023')
          throw new BadRequestError('Invalid timezone.', {
            detail: `unknown time zone ${zone}`,
            code: 'BAD_TIMEZONE',
          });
        throw error;
      })) as { status: ChartStatus; date: Date | string; count: number }[];
    const result: Record<ChartStatus, StatusCount[]> = { active: [], dormant: [], suspended: [] };
    for (const row of rows) result[row.status].push({ date: new Date(row.date), count: row.count });
    return result;
  }
}

import { Injectable } from '@nestjs/common';
import { BadRequestError, InvalidError } from '../../../platform/errors/domain-error';
import { UserStatusChartRepository } from '../repositories/user-status-chart.repository';

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
  constructor(private readonly rows: UserStatusChartRepository) {}

  async counts(zone: string, now = new Date()): Promise<Record<ChartStatus, StatusCount[]>> {
    const nextHour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 + 3_600_000);
    const lastDay = localDate(nextHour, zone);
    const first = new Date(`${lastDay}T00:00:00Z`);
    first.setUTCDate(first.getUTCDate() - WINDOW_DAYS);
    const firstDay = first.toISOString().slice(0, 10);
    // Each status period [valid_from, valid_to) counts on the local days from the one containing
    // valid_from up to (not including) the one containing valid_to: a running sum of +1/-1 per day.
    const rows = await this.rows.statusCounts(firstDay, lastDay, zone).catch((error: unknown) => {
      // A zone the runtime knows and this PostgreSQL does not (older tz data): the caller's input, not a 500.
      if ((error as { driverError?: { code?: string } }).driverError?.code === '22023')
        throw new BadRequestError('Invalid timezone.', {
          detail: `unknown time zone ${zone}`,
          code: 'BAD_TIMEZONE',
        });
      throw error;
    });
    const result: Record<ChartStatus, StatusCount[]> = { active: [], dormant: [], suspended: [] };
    for (const row of rows) result[row.status].push({ date: new Date(row.date), count: row.count });
    return result;
  }
}

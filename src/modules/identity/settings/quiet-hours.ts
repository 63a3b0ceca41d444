/**
 * Quiet hours schedules as Coder takes them: `CRON_TZ=<zone> <minute> <hour> * * *` (the zone is optional,
 * UTC by default), a daily window with one start time.
 */
export interface QuietHoursSchedule {
  raw: string;
  timezone: string;
  hour: number;
  minute: number;
}

export const DEFAULT_QUIET_HOURS = 'CRON_TZ=UTC 0 0 * * *';

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The schedule, or the reason it is not one. */
export function parseQuietHours(raw: string): QuietHoursSchedule | { error: string } {
  const text = raw.trim();
  const match = /^(?:CRON_TZ=(\S+)\s+)?(\d{1,2})\s+(\d{1,2})\s+\*\s+\*\s+\*$/.exec(text);
  if (!match)
    return { error: 'schedule must be daily with a single time: "CRON_TZ=<zone> <minute> <hour> * * *"' };
  const timezone = match[1] ?? 'UTC';
  const minute = Number(match[2]);
  const hour = Number(match[3]);
  if (minute > 59 || hour > 23) return { error: 'minute must be 0-59 and hour 0-23' };
  if (!validZone(timezone)) return { error: `unknown time zone "${timezone}"` };
  return { raw: text, timezone, hour, minute };
}

/** Minutes the zone is ahead of UTC at `instant`. */
function zoneOffsetMinutes(zone: string, instant: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(instant);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  return Math.round((asUtc - Math.floor(instant.getTime() / 60_000) * 60_000) / 60_000);
}

/** The next start of the window after `now`. */
export function nextQuietHoursStart(schedule: QuietHoursSchedule, now: Date): Date {
  for (let day = -1; day <= 2; day += 1) {
    const local = new Date(
      Date.UTC(
        now.getUTCFullYear(),
        now.getUTCMonth(),
        now.getUTCDate() + day,
        schedule.hour,
        schedule.minute,
      ),
    );
    const candidate = new Date(local.getTime() - zoneOffsetMinutes(schedule.timezone, local) * 60_000);
    if (candidate > now) return candidate;
  }
  return new Date(now.getTime() + 86_400_000);
}

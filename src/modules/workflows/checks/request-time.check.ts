import { DateTime } from 'luxon';
import { CHECK_PREFIX, SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';
import { CheckInvalidError, OPERATOR_INVALID, type CheckDefinition } from './check.types';

const ITEM = '"(?:[01][0-9]|2[0-3]):[0-5][0-9] [A-Za-z]+(?:/[A-Za-z_-]+)+"';
const SPAN = new RegExp(`^\\[${ITEM},${ITEM}\\]$`);

function zoneIsValid(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

interface Bound {
  hour: number;
  minute: number;
  zone: string;
}

function parseBounds(value: string): [Bound, Bound] | null {
  if (!SPAN.test(value)) return null;
  const items = JSON.parse(value) as [string, string];
  const bound = (item: string): Bound => {
    const [time, zone] = item.split(' ') as [string, string];
    const [hour, minute] = time.split(':').map(Number) as [number, number];
    return { hour, minute, zone };
  };
  return [bound(items[0]), bound(items[1])];
}

function boundToday(bound: Bound, now: number): number {
  return DateTime.fromSeconds(now, { zone: bound.zone })
    .set({ hour: bound.hour, minute: bound.minute, second: 0, millisecond: 0 })
    .toSeconds();
}

/** Nextcloud's RequestTime: `["HH:MM Area/City","HH:MM Area/City"]`, inclusive, spans over midnight. */
export const RequestTimeCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}RequestTime`,
  name: 'Request time',
  operators: ['in', '!in'],
  valueFormat:
    'JSON array of two strings "HH:MM Area/City" (IANA time zone), start then end; end before start spans over midnight',
  examples: [
    '["08:00 Europe/Berlin","17:00 Europe/Berlin"]',
    '["22:00 America/New_York","06:00 America/New_York"]',
  ],
  supportedEntities: [],
  scopes: [SCOPE_ADMIN, SCOPE_USER],
  validate(operator, value) {
    if (operator !== 'in' && operator !== '!in') throw new CheckInvalidError(OPERATOR_INVALID);
    const bounds = parseBounds(value);
    if (!bounds) throw new CheckInvalidError('The given time span is invalid');
    if (!zoneIsValid(bounds[0].zone)) throw new CheckInvalidError('The given start time is invalid');
    if (!zoneIsValid(bounds[1].zone)) throw new CheckInvalidError('The given end time is invalid');
  },
  compile(operator, value) {
    const bounds = parseBounds(value);
    if (!bounds || !zoneIsValid(bounds[0].zone) || !zoneIsValid(bounds[1].zone)) return () => false;
    const negate = operator === '!in';
    return (s) => {
      const now = Math.floor(s.now);
      const t1 = boundToday(bounds[0], now);
      const t2 = boundToday(bounds[1], now);
      const inside = t1 < t2 ? t1 <= now && now <= t2 : now >= t1 || now <= t2;
      return negate ? !inside : inside;
    };
  },
};

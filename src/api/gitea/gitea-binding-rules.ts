/**
 * The rules of Gitea's request binding (go-chi binding plus Gitea's own rules) and of Go's JSON
 * decoder, as pure functions. The binding decorators (`gitea-binding.decorators.ts`) run them as
 * class-validator constraints; modules may use them for their own checks.
 */

const USERNAME_CHARS = /^[\da-zA-Z][-.\w]*$/;
const USERNAME_BAD_SEQUENCE = /[-._]{2,}|[-._]$/;

/** Gitea's `Username` binding rule (and `IsValidUsername`). */
export function isValidUsername(name: string): boolean {
  return USERNAME_CHARS.test(name) && !USERNAME_BAD_SEQUENCE.test(name);
}

/** go-chi binding's `Email` rule (unanchored: the pattern only has to occur in the value). */
const BINDING_EMAIL =
  /[\w!#$%&'*+/=?^_`{|}~-]+(?:\.[\w!#$%&'*+/=?^_`{|}~-]+)*@(?:\w(?:[\w-]*\w)?\.)+[a-zA-Z0-9](?:[\w-]*\w)?/;

/**
 * Gitea's GitRefName binding (modules/git/ref.go, `git check-ref-format` approximated): no control
 * characters, space, `\ ~ ^ : ? * [`; no leading `/` or `.`; no `/.`, `..`, `//`, `@{`; not ending
 * with `/`, `.` or `.lock` (nor `.lock/` inside); not `@`.
 */
export function isValidGitRefName(name: string): boolean {
  if (!name || name === '@') return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f\\~^:?*[]/.test(name)) return false;
  if (name.startsWith('/') || name.startsWith('.')) return false;
  if (name.includes('/.') || name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock') || name.includes('.lock/'))
    return false;
  return true;
}

export function bindingEmailOk(value: string): boolean {
  return BINDING_EMAIL.test(value);
}

/** go-chi binding's `Url` rule as devplane applies it: an absolute http(s) URL with a host. */
export function bindingUrlOk(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Length in runes (Gitea's MaxSize counts Unicode code points). */
export function runeLength(value: string): number {
  return [...value].length;
}

/** The JSON kind Go's decoder names in `cannot unmarshal <kind>`. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Go's strconv.ParseBool: null when the text is not a boolean. */
export function parseGoBool(value: unknown): boolean | null {
  if (typeof value !== 'string') return null;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return null;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** A Go `time.Time` decoded from JSON: the instant, or the decoder's error text (without `[]: `). */
export type GoTimeResult = { ok: true; time: Date } | { ok: false; error: string };

/**
 * Go's time.Parse(RFC3339) as the JSON decoder applies it. Computed here rather than by
 * Date.parse, which rolls 30 February over to March, accepts hour 24 and refuses the offsets
 * +24:00 that Go accepts. Errors: wrong layout `cannot parse`, a field `out of range`.
 */
export function parseGoTime(value: string): GoTimeResult {
  const match = RFC3339.exec(value);
  if (!match)
    return {
      ok: false,
      error: `parsing time "\\"${value}\\"" as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse`,
    };
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] ? Number(`0${match[7]}`) : 0;
  const sign = match[8] === '-' ? -1 : 1;
  const offsetHour = match[9] ? Number(match[9]) : 0;
  const offsetMinute = match[10] ? Number(match[10]) : 0;
  const outOfRange = (field: string): GoTimeResult => ({
    ok: false,
    error: `parsing time "\\"${value}\\"": ${field} out of range`,
  });
  if (month < 1 || month > 12) return outOfRange('month');
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day < 1 || day > days) return outOfRange('day');
  if (hour > 23) return outOfRange('hour');
  if (minute > 59) return outOfRange('minute');
  if (second > 59) return outOfRange('second');
  if (offsetHour > 24) return outOfRange('time zone offset hour');
  if (offsetMinute > 59) return outOfRange('time zone offset minute');
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0-99 as written
  date.setUTCHours(hour, minute, second, Math.floor(fraction * 1000));
  return { ok: true, time: new Date(date.getTime() - sign * (offsetHour * 60 + offsetMinute) * 60_000) };
}

/** The instant of an RFC 3339 text that the binding already accepted. */
export function goTime(value: string): Date {
  const parsed = parseGoTime(value);
  if (!parsed.ok) throw new TypeError(parsed.error);
  return parsed.time;
}

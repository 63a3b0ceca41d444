/**
 * UUID parsing as Go's github.com/google/uuid `Parse`: 36-char hyphenated, 32 hex digits,
 * `{...}` and `urn:uuid:...`, any case. Returns the lower-case hyphenated form, or the Go error text.
 */
export function parseUuid(raw: string): { uuid: string } | { error: string } {
  let s = raw;
  switch (s.length) {
    case 36:
      break;
    case 36 + 9:
      if (s.slice(0, 9).toLowerCase() !== 'urn:uuid:')
        return { error: `invalid urn prefix: "${s.slice(0, 9)}"` };
      s = s.slice(9);
      break;
    case 36 + 2:
      if (!s.startsWith('{') || !s.endsWith('}')) return { error: 'invalid UUID format' };
      s = s.slice(1, -1);
      break;
    case 32:
      if (!/^[0-9a-fA-F]{32}$/.test(s)) return { error: 'invalid UUID format' };
      s = `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
      break;
    default:
      return { error: `invalid UUID length: ${raw.length}` };
  }
  if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s)) {
    return { error: 'invalid UUID format' };
  }
  return { uuid: s.toLowerCase() };
}

export function isUuid(raw: string): boolean {
  return 'uuid' in parseUuid(raw);
}

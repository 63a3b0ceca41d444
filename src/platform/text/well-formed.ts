type Unicode = { isWellFormed(): boolean; toWellFormed(): string };

/**
 * Replaces lone UTF-16 surrogates with U+FFFD in a string, or in every key and string of an array or
 * object (a new value; own keys only, so a `__proto__` key stays a plain key), as Go's JSON decoder
 * does. JSON may carry them (`"\ud800"`), but no UTF-8 store holds them: PostgreSQL refuses them in
 * jsonb and turns them into U+FFFD in text.
 */
export function wellFormed<T>(value: T, depth = 0): T {
  if (typeof value === 'string') {
    const text = value as unknown as Unicode;
    return (text.isWellFormed() ? value : text.toWellFormed()) as T;
  }
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => wellFormed(item, depth + 1)) as T;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      wellFormed(key),
      wellFormed(item, depth + 1),
    ]),
  ) as T;
}

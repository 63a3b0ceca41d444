import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Issue 34 item 2: every field of Gitea's swagger for the objects devplane serves is in devplane's
 * OpenAPI document (generated from the presenters' DTOs). The fixture holds the property names of
 * Gitea's definitions (`test/fixtures/gitea-swagger-properties.json`, taken from Gitea's swagger);
 * the fields Gitea leaves out when they are nil (`omitempty` pointers) are named below.
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const gitea = JSON.parse(
  readFileSync(path.join(ROOT, 'test', 'fixtures', 'gitea-swagger-properties.json'), 'utf8'),
) as Record<string, { schema: string; properties: string[] }>;
const schemas = (
  JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as {
    components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
  }
).components.schemas;

/** `omitempty` pointers Gitea omits when nil, and devplane never has: an external tracker or wiki, a pending transfer. */
const OMITTED_WHEN_NIL: Record<string, string[]> = {
  Repository: ['external_tracker', 'external_wiki', 'repo_transfer'],
};

describe('Gitea swagger parity of the served objects', () => {
  it.each(Object.entries(gitea))(
    '%s has every field of Gitea’s definition',
    (name, { schema, properties }) => {
      const served = Object.keys(schemas[schema]?.properties ?? {});
      expect(served.length).toBeGreaterThan(0);
      const missing = properties.filter(
        (property) => !served.includes(property) && !(OMITTED_WHEN_NIL[name] ?? []).includes(property),
      );
      expect({ name, missing }).toEqual({ name, missing: [] });
    },
  );
});

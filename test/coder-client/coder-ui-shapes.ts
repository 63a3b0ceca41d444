import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Coder's own wire shapes (issue 48): the definitions of Coder's swagger at the UI's commit
 * (`/work/shared/reference/openapi/coder-ui-subset.json`, copied to test/fixtures) as JSON Schema. Every
 * property a definition lists is required here (`typesGenerated.ts` makes them non-optional unless the Go
 * field is `omitempty`; those are named in `optional`), and values must have the declared types.
 */
const SUBSET = path.join(__dirname, '../fixtures/coder-ui-subset.json');

type Schema = Record<string, unknown>;
let definitions: Record<string, Schema> | undefined;

function load(): Record<string, Schema> {
  definitions ??= (JSON.parse(readFileSync(SUBSET, 'utf8')) as { definitions: Record<string, Schema> })
    .definitions;
  return definitions;
}

function strict(node: unknown, optional: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => strict(item, optional));
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key.startsWith('x-') || key === 'example') continue;
    out[key] = key === 'properties' ? strictProperties(value as Schema, optional) : strict(value, optional);
  }
  if (out.properties && !out.required)
    out.required = Object.keys(out.properties as Schema).filter((name) => !optional.has(name));
  return out;
}

function strictProperties(properties: Schema, optional: ReadonlySet<string>): Schema {
  const out: Schema = {};
  for (const [name, value] of Object.entries(properties)) out[name] = strict(value, optional);
  return out;
}

const cache = new Map<string, ValidateFunction>();

/** Throws with ajv's errors unless `body` has the shape of Coder's `definition` (e.g. `codersdk.Entitlements`). */
export function expectCoderShape(definition: string, body: unknown, optional: string[] = []): void {
  const key = `${definition}|${optional.join(',')}`;
  let validate = cache.get(key);
  if (!validate) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const defs = strict(load(), new Set(optional)) as Record<string, Schema>;
    ajv.addSchema({ $id: 'coder', definitions: defs });
    validate = ajv.compile({ $ref: `coder#/definitions/${definition}` });
    cache.set(key, validate);
  }
  if (!validate(body))
    throw new Error(
      `not a ${definition}: ${JSON.stringify(validate.errors?.slice(0, 8), null, 1)}\n${JSON.stringify(body).slice(0, 2000)}`,
    );
}

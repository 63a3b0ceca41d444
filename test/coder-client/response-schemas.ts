import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The Coder e2e schema check (issue 33 acceptance): tests record the live responses of the Coder
 * dialect (method, path, status, body) and every recorded JSON body is validated with ajv against the
 * response schema of the matching operation in the server's own generated OpenAPI documents (the
 * public one and the experimental one). A required field missing, a wrong `null` or a value outside
 * an enum fails the test.
 */
export interface RecordedResponse {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

type Schema = Record<string, unknown>;
interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>
  >;
  components?: { schemas?: Record<string, Schema> };
}

/** Coder routes: `/api/v2/…` and `/api/experimental/…` (not the daemon or agent protocols). */
export function isCoderRoute(path: string): boolean {
  return /^\/api\/(v2|experimental)\//.test(path) && !path.startsWith('/api/v2/provisionerdaemons/');
}

/** Records what a `fetch`-based client sends and gets (the body is read from a clone). */
export class ResponseRecorder {
  readonly responses: RecordedResponse[] = [];

  async record(method: string, url: string, response: Response): Promise<void> {
    const path = new URL(url).pathname;
    if (!isCoderRoute(path)) return;
    if (!(response.headers.get('content-type') ?? '').includes('application/json')) return;
    const text = await response.clone().text();
    if (!text) return;
    try {
      this.responses.push({
        method: method.toUpperCase(),
        path,
        status: response.status,
        body: JSON.parse(text),
      });
    } catch {
      // not JSON after all: nothing to validate
    }
  }
}

/**
 * OpenAPI 3.0's `nullable` in plain JSON Schema: `null` joins the type, the enum, or an `anyOf`
 * around a `$ref`/`allOf` (ajv's own `nullable` needs a `type` next to it).
 */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'example' || key === 'examples') continue;
    out[key] =
      key === '$ref'
        ? String(value).replace('#/components/schemas/', 'openapi#/definitions/')
        : normalize(value);
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    const composed = '$ref' in out || 'allOf' in out || 'anyOf' in out || 'oneOf' in out;
    if (!composed && typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
    return { anyOf: [{ type: 'null' }, out] };
  }
  delete out.nullable;
  return out;
}

function routePattern(template: string): RegExp {
  const source = template
    .split('/')
    .map((segment) =>
      /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}

export class ResponseSchemas {
  private readonly ajv: Ajv;
  private readonly routes: {
    pattern: RegExp;
    template: string;
    literal: number;
    operations: OpenApiDocument['paths'][string];
  }[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(documents: OpenApiDocument[]) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    const definitions: Record<string, unknown> = {};
    for (const document of documents) {
      for (const [name, schema] of Object.entries(document.components?.schemas ?? {}))
        definitions[name] = normalize(schema);
      for (const [template, operations] of Object.entries(document.paths))
        this.routes.push({
          template,
          pattern: routePattern(template),
          // Literal segments first: `/users/me/...` before `/users/{user}/...`.
          literal: template.split('/').filter((segment) => !segment.startsWith('{')).length,
          operations,
        });
    }
    this.routes.sort((a, b) => b.literal - a.literal);
    this.ajv.addSchema({ $id: 'openapi', definitions });
  }

  /** The operation's JSON schema for a status, or undefined when the document states none. */
  private validator(
    method: string,
    path: string,
    status: number,
  ): { key: string; validate?: ValidateFunction } {
    const route = this.routes.find(
      (candidate) => candidate.pattern.test(path) && candidate.operations[method.toLowerCase()],
    );
    if (!route) return { key: `${method} ${path} (no operation)` };
    const operation = route.operations[method.toLowerCase()]!;
    const response = operation.responses?.[String(status)] ?? operation.responses?.default;
    const schema = response?.content?.['application/json']?.schema;
    const key = `${method} ${route.template} ${status}`;
    if (!schema) return { key };
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(normalize(schema) as Schema);
      this.validators.set(key, validate);
    }
    return { key, validate };
  }

  /** Every recorded body against its schema: the failures, and what had no schema to check. */
  check(recorded: RecordedResponse[]): { failures: string[]; unchecked: string[]; checked: number } {
    const failures: string[] = [];
    const unchecked = new Set<string>();
    let checked = 0;
    for (const response of recorded) {
      const { key, validate } = this.validator(response.method, response.path, response.status);
      if (!validate) {
        unchecked.add(key);
        continue;
      }
      checked++;
      if (!validate(response.body))
        failures.push(
          `${key} (${response.path}): ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`,
        );
    }
    return { failures: [...new Set(failures)], unchecked: [...unchecked].sort(), checked };
  }
}

/** The server's OpenAPI documents (public and experimental). */
export async function loadResponseSchemas(baseUrl: string): Promise<ResponseSchemas> {
  const documents: OpenApiDocument[] = [];
  for (const route of ['/docs-json', '/docs-experimental-json']) {
    const response = await fetch(`${baseUrl}${route}`);
    if (response.ok) documents.push((await response.json()) as OpenApiDocument);
  }
  return new ResponseSchemas(documents);
}

import { parse as parseEnv } from 'dotenv';
import { parse as parseYaml } from 'yaml';
import { BadRequestError, InvalidError } from '../../../platform/errors/domain-error';
import type { CreateSecretInput } from './user-secrets.service';

export const IMPORT_FORMATS = ['env', 'json', 'yaml'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
/** The import file itself (the request body may be larger: JSON escaping). */
export const IMPORT_FILE_MAX_BYTES = 1024 * 1024;
export const IMPORT_BODY_MAX_BYTES = 8 * 1024 * 1024;

function fromEntry(entry: unknown, index: number): CreateSecretInput {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new InvalidError('Validation failed.', {
      code: 'VALIDATION',
      fields: [{ field: `secrets[${index}]`, detail: 'must be an object with name and value' }],
    });
  const record = entry as Record<string, unknown>;
  const text = (key: string): string | undefined => {
    const value = record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string')
      throw new InvalidError('Validation failed.', {
        code: 'VALIDATION',
        fields: [{ field: `secrets[${index}].${key}`, detail: 'must be a string' }],
      });
    return value;
  };
  const enabled = record.enabled;
  return {
    name: text('name'),
    value: text('value'),
    description: text('description'),
    envName: text('env_name'),
    filePath: text('file_path'),
    enabled: typeof enabled === 'boolean' ? enabled : undefined,
  };
}

/** `NAME: value` pairs become secrets injected as the variable of the same name. */
function fromMap(map: Record<string, unknown>): CreateSecretInput[] {
  return Object.entries(map).map(([name, value], index) => {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      throw new InvalidError('Validation failed.', {
        code: 'VALIDATION',
        fields: [{ field: `secrets[${index}].value`, detail: 'must be a string' }],
      });
    return { name, value: String(value), envName: name };
  });
}

/**
 * The secrets of an import file (decision, documented in the identity README): `env` is dotenv
 * (`NAME=value` lines, each a secret injected as `$NAME`); `json` and `yaml` are either a map of
 * `NAME: value` (the same) or a list of secret objects (`name`, `value`, `description`,
 * `env_name`, `file_path`, `enabled`).
 */
export function parseSecretImport(format: string, content: string): CreateSecretInput[] {
  // Coder's order and texts (codersdk ParseSecretsFile, rendered by the batch handler): the size, the format,
  // an empty file, the parse, a file without secrets; each a 400 `Failed to parse secrets file.` with the why.
  const refused = (detail: string, code: 'IMPORT_PARSE' | 'IMPORT_TOO_LARGE' = 'IMPORT_PARSE') =>
    new BadRequestError('Failed to parse secrets file.', { code, detail });
  if (Buffer.byteLength(content) > IMPORT_FILE_MAX_BYTES)
    throw refused(
      `secrets file exceeds the maximum allowed size of ${IMPORT_FILE_MAX_BYTES} bytes`,
      'IMPORT_TOO_LARGE',
    );
  if (format === '') throw refused('a secrets file format is required');
  if (!(IMPORT_FORMATS as readonly string[]).includes(format))
    throw refused(`unknown secrets file format ${JSON.stringify(format)}`);
  if (content.trim() === '') throw refused('no secrets found in file');
  let parsed: unknown;
  let secrets: CreateSecretInput[];
  try {
    if (format === 'env') secrets = fromMap(parseEnv(content));
    else {
      parsed = format === 'json' ? JSON.parse(content) : parseYaml(content, { maxAliasCount: 100 });
      if (Array.isArray(parsed)) secrets = parsed.map(fromEntry);
      else if (typeof parsed === 'object' && parsed !== null)
        secrets = fromMap(parsed as Record<string, unknown>);
      else
        throw refused(
          format === 'json'
            ? 'JSON content must be an object mapping secret names to string values'
            : 'YAML content must be a mapping of secret names to string values',
        );
    }
  } catch (error) {
    if (error instanceof BadRequestError || error instanceof InvalidError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw refused(
      format === 'json' ? `invalid JSON: ${why}` : format === 'yaml' ? `invalid YAML: ${why}` : why,
    );
  }
  if (secrets.length === 0) throw refused('no secrets found in file');
  return secrets;
}

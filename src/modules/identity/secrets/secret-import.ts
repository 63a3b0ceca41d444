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
  if (!(IMPORT_FORMATS as readonly string[]).includes(format))
    throw new InvalidError('Validation failed.', {
      code: 'VALIDATION',
      fields: [{ field: 'format', detail: `format must be one of ${IMPORT_FORMATS.join(', ')}` }],
    });
  if (Buffer.byteLength(content) > IMPORT_FILE_MAX_BYTES)
    throw new BadRequestError(`Import file must not exceed ${IMPORT_FILE_MAX_BYTES} bytes.`, {
      code: 'IMPORT_TOO_LARGE',
    });
  let parsed: unknown;
  try {
    if (format === 'env') return fromMap(parseEnv(content));
    parsed = format === 'json' ? JSON.parse(content) : parseYaml(content, { maxAliasCount: 100 });
  } catch (error) {
    throw new BadRequestError('Invalid import file.', {
      code: 'IMPORT_PARSE',
      detail: error instanceof Error ? error.message : String(error),
    });
  }
  if (Array.isArray(parsed)) return parsed.map(fromEntry);
  if (typeof parsed === 'object' && parsed !== null) return fromMap(parsed as Record<string, unknown>);
  throw new BadRequestError('Invalid import file.', {
    code: 'IMPORT_PARSE',
    detail: 'expected a map of names to values or a list of secrets',
  });
}

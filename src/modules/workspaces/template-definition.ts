import { InvalidError } from '../../platform/errors/domain-error';

import type { TemplateDefinition } from '../../platform/ports/provisioner-protocol';

/**
 * The built-in provisioner's template (its shape: platform/ports/provisioner-protocol.ts). A workspace
 * is `DATA_DIR/workspaces/<id>`; `directory` is created inside it, `files` are written relative to it,
 * the agent runs there with `env`.
 */
export type { TemplateDefinition };

const SLUG = /^[a-z0-9](-?[a-z0-9])*$/;
const MAX_FILES = 100;
const MAX_FILE_BYTES = 1024 * 1024;

function relativePath(value: string, field: string): string {
  const parts = value.split('/');
  if (
    value === '' ||
    value.startsWith('/') ||
    value.includes('\0') ||
    parts.some((part) => part === '..' || part === '')
  )
    throw invalid(field, 'must be a relative path inside the workspace without ".." segments');
  return value;
}

function invalid(field: string, detail: string): InvalidError {
  return new InvalidError('Invalid template definition.', {
    code: 'INVALID_DEFINITION',
    fields: [{ field, detail }],
  });
}

function stringMap(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(field, 'must be an object of strings');
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry !== 'string') throw invalid(`${field}.${key}`, 'must be a string');
    out[key] = entry;
  }
  return out;
}

/** Coder's app sharing levels, narrowest first. */
export const SHARE_LEVELS = ['owner', 'authenticated', 'organization', 'public'] as const;
export type ShareLevel = (typeof SHARE_LEVELS)[number];

/** An app URL the agent can reach: http(s) with a host. */
function appUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'must be an http or https URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '')
    throw invalid(field, 'must be an http or https URL');
  return url;
}

function parseHealthcheck(
  value: unknown,
  field: string,
): { url: string; interval: number; threshold: number } {
  const entry = (value ?? {}) as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(field, 'must be an object {url, interval, threshold}');
  if (typeof entry.url !== 'string') throw invalid(`${field}.url`, 'is required');
  appUrl(entry.url, `${field}.url`);
  const interval = entry.interval ?? 5;
  const threshold = entry.threshold ?? 3;
  if (!Number.isInteger(interval) || (interval as number) < 1 || (interval as number) > 3600)
    throw invalid(`${field}.interval`, 'must be an integer from 1 to 3600 (seconds)');
  if (!Number.isInteger(threshold) || (threshold as number) < 1 || (threshold as number) > 100)
    throw invalid(`${field}.threshold`, 'must be an integer from 1 to 100');
  return { url: entry.url, interval: interval as number, threshold: threshold as number };
}

/** Checks a definition; throws InvalidError (400 with the field) on anything the provisioner could not apply. */
export function parseTemplateDefinition(raw: unknown): TemplateDefinition {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid('definition', 'must be a JSON object');
  const input = raw as Record<string, unknown>;
  const known = new Set([
    'directory',
    'files',
    'env',
    'apps',
    'startup_script',
    'provision_script',
    'has_ai_task',
    'vnc_command',
    'presets',
    'metadata',
    'max_share_level',
  ]);
  for (const key of Object.keys(input)) if (!known.has(key)) throw invalid(key, 'is not a known field');
  const out: TemplateDefinition = {};
  if (input.directory !== undefined) {
    if (typeof input.directory !== 'string') throw invalid('directory', 'must be a string');
    out.directory = relativePath(input.directory, 'directory');
  }
  const files = stringMap(input.files, 'files');
  if (Object.keys(files).length > MAX_FILES) throw invalid('files', `at most ${MAX_FILES} files`);
  for (const [name, content] of Object.entries(files)) {
    relativePath(name, `files.${name}`);
    if (Buffer.byteLength(content) > MAX_FILE_BYTES) throw invalid(`files.${name}`, 'is larger than 1 MiB');
  }
  if (input.files !== undefined) out.files = files;
  const env = stringMap(input.env, 'env');
  for (const name of Object.keys(env))
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalid(`env.${name}`, 'is not a valid variable name');
  if (input.env !== undefined) out.env = env;
  for (const key of ['startup_script', 'provision_script', 'vnc_command'] as const) {
    if (input[key] === undefined) continue;
    if (typeof input[key] !== 'string') throw invalid(key, 'must be a string');
    out[key] = input[key];
  }
  if (input.has_ai_task !== undefined) {
    if (typeof input.has_ai_task !== 'boolean') throw invalid('has_ai_task', 'must be a boolean');
    out.has_ai_task = input.has_ai_task;
  }
  if (input.apps !== undefined) {
    if (!Array.isArray(input.apps)) throw invalid('apps', 'must be a list');
    const slugs = new Set<string>();
    out.apps = input.apps.map((app: unknown, index) => {
      const entry = (app ?? {}) as Record<string, unknown>;
      if (typeof entry.slug !== 'string' || !SLUG.test(entry.slug) || entry.slug.length > 32)
        throw invalid(`apps[${index}].slug`, 'must be lower-case letters, digits and single hyphens');
      if (slugs.has(entry.slug)) throw invalid(`apps[${index}].slug`, 'is used twice');
      slugs.add(entry.slug);
      for (const key of ['display_name', 'command', 'url', 'icon'])
        if (entry[key] !== undefined && typeof entry[key] !== 'string')
          throw invalid(`apps[${index}].${key}`, 'must be a string');
      if (entry.subdomain !== undefined && typeof entry.subdomain !== 'boolean')
        throw invalid(`apps[${index}].subdomain`, 'must be a boolean');
      if (entry.share !== undefined && !SHARE_LEVELS.includes(entry.share as ShareLevel))
        throw invalid(`apps[${index}].share`, `must be one of ${SHARE_LEVELS.join(', ')}`);
      if (entry.url !== undefined) appUrl(entry.url as string, `apps[${index}].url`);
      return {
        slug: entry.slug,
        display_name: entry.display_name as string | undefined,
        command: entry.command as string | undefined,
        url: entry.url as string | undefined,
        icon: entry.icon as string | undefined,
        ...(entry.subdomain === undefined ? {} : { subdomain: entry.subdomain }),
        ...(entry.share === undefined ? {} : { share: entry.share as ShareLevel }),
        ...(entry.healthcheck === undefined
          ? {}
          : { healthcheck: parseHealthcheck(entry.healthcheck, `apps[${index}].healthcheck`) }),
      };
    });
  }
  if (input.max_share_level !== undefined) {
    if (!SHARE_LEVELS.includes(input.max_share_level as ShareLevel))
      throw invalid('max_share_level', `must be one of ${SHARE_LEVELS.join(', ')}`);
    out.max_share_level = input.max_share_level as ShareLevel;
  }
  if (input.metadata !== undefined) out.metadata = parseMetadata(input.metadata);
  if (input.presets !== undefined) {
    if (!Array.isArray(input.presets)) throw invalid('presets', 'must be a list');
    const names = new Set<string>();
    out.presets = input.presets.map((preset: unknown, index) => {
      const entry = (preset ?? {}) as Record<string, unknown>;
      if (typeof entry.name !== 'string' || entry.name === '' || entry.name.length > 64)
        throw invalid(`presets[${index}].name`, 'is required (at most 64 characters)');
      if (names.has(entry.name)) throw invalid(`presets[${index}].name`, 'is used twice');
      names.add(entry.name);
      const prebuilds = (entry.prebuilds ?? {}) as Record<string, unknown>;
      const instances = prebuilds.instances;
      if (
        instances !== undefined &&
        (!Number.isInteger(instances) || (instances as number) < 0 || (instances as number) > 100)
      )
        throw invalid(`presets[${index}].prebuilds.instances`, 'must be an integer from 0 to 100');
      return {
        name: entry.name,
        parameters: stringMap(entry.parameters, `presets[${index}].parameters`),
        prebuilds: instances === undefined ? undefined : { instances: instances as number },
        default: entry.default === true,
      };
    });
  }
  return out;
}

const MAX_METADATA = 32;

/** Agent metadata items: a unique key, a script, an interval and a timeout in seconds (Coder's defaults: timeout 1). */
function parseMetadata(raw: unknown): NonNullable<TemplateDefinition['metadata']> {
  if (!Array.isArray(raw)) throw invalid('metadata', 'must be a list');
  if (raw.length > MAX_METADATA) throw invalid('metadata', `at most ${MAX_METADATA} items`);
  const keys = new Set<string>();
  return raw.map((item: unknown, index) => {
    const entry = (item ?? {}) as Record<string, unknown>;
    const field = (name: string) => `metadata[${index}].${name}`;
    if (typeof entry.key !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(entry.key))
      throw invalid(field('key'), 'is required: letters, digits, "_", "." and "-" (at most 128)');
    if (keys.has(entry.key)) throw invalid(field('key'), 'is used twice');
    keys.add(entry.key);
    if (typeof entry.script !== 'string' || entry.script.trim() === '')
      throw invalid(field('script'), 'is required');
    if (entry.display_name !== undefined && typeof entry.display_name !== 'string')
      throw invalid(field('display_name'), 'must be a string');
    const seconds = (name: string, fallback: number): number => {
      const value = entry[name] ?? fallback;
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 86_400)
        throw invalid(field(name), 'must be a whole number of seconds from 1 to 86400');
      return value as number;
    };
    return {
      key: entry.key,
      display_name: (entry.display_name as string | undefined) ?? entry.key,
      script: entry.script,
      interval: seconds('interval', 10),
      timeout: seconds('timeout', 1),
    };
  });
}

import type { FieldError } from '../../../platform/errors/domain-error';

/** Coder's limits (reference D.1). */
export const SECRET_VALUE_MAX_BYTES = 24 * 1024;
export const SECRETS_PER_USER = 50;
export const SECRETS_TOTAL_BYTES = 200 * 1024;
export const SECRETS_ENV_TOTAL_BYTES = 24 * 1024;
const ENV_NAME_MAX_BYTES = 256;
const FILE_PATH_MAX_BYTES = 4096;

const RESERVED_ENV = new Set(
  'PATH HOME SHELL USER LOGNAME PWD OLDPWD LANG TERM IFS CDPATH ENV BASH_ENV TMPDIR TMP TEMP HOSTNAME SSH_AUTH_SOCK SSH_CLIENT SSH_CONNECTION SSH_TTY EDITOR VISUAL PAGER VSCODE_PROXY_URI CS_DISABLE_GETTING_STARTED_OVERRIDE XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME'.split(
    ' ',
  ),
);
const RESERVED_PREFIXES = ['GIT_', 'LC_', 'LD_', 'DYLD_'];

export const ENABLED_NEEDS_TARGET =
  'An enabled secret must have at least one of env_name or file_path set. To keep a secret without injecting it, set enabled to false instead of clearing both targets.';

export function nameProblems(name: string | undefined): FieldError[] {
  // Coder's order and texts (codersdk UserSecretNameValid): a blank name is required, then whitespace, then / ? #.
  if (name === undefined || name.trim() === '') return [{ field: 'name', detail: 'Name is required.' }];
  if (name.trim() !== name)
    return [{ field: 'name', detail: 'Name must not have leading or trailing whitespace.' }];
  if (/[/?#]/.test(name)) return [{ field: 'name', detail: 'Name must not contain /, ?, or #.' }];
  if (Buffer.byteLength(name) > 255) return [{ field: 'name', detail: 'Name must be at most 255 bytes.' }];
  return [];
}

export function valueProblems(value: string | undefined, required: boolean): FieldError[] {
  if (value === undefined || (required && value === ''))
    return required ? [{ field: 'value', detail: 'Value is required.' }] : [];
  if (value.includes('\0')) return [{ field: 'value', detail: 'secret value must not contain null bytes' }];
  if (Buffer.byteLength(value) > SECRET_VALUE_MAX_BYTES)
    return [{ field: 'value', detail: `secret value must not exceed ${SECRET_VALUE_MAX_BYTES} bytes` }];
  return [];
}

export function envNameProblems(envName: string | undefined): FieldError[] {
  if (!envName) return [];
  if (Buffer.byteLength(envName) > ENV_NAME_MAX_BYTES)
    return [
      { field: 'env_name', detail: `environment variable name must not exceed ${ENV_NAME_MAX_BYTES} bytes` },
    ];
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(envName))
    return [
      {
        field: 'env_name',
        detail: 'must start with a letter or underscore, followed by letters, digits, or underscores',
      },
    ];
  // Coder's order and texts: the reserved names (named in upper case), then CODER/CODER_*, then the prefixes.
  const upper = envName.toUpperCase();
  if (RESERVED_ENV.has(upper))
    return [{ field: 'env_name', detail: `${upper} is a reserved environment variable name` }];
  if (upper === 'CODER' || upper.startsWith('CODER_'))
    return [
      {
        field: 'env_name',
        detail: 'environment variable names starting with CODER_ are reserved for internal use',
      },
    ];
  const prefix = RESERVED_PREFIXES.find((candidate) => upper.startsWith(candidate));
  if (prefix)
    return [{ field: 'env_name', detail: `environment variables starting with ${prefix} are reserved` }];
  return [];
}

export function filePathProblems(filePath: string | undefined): FieldError[] {
  if (!filePath) return [];
  if (!filePath.startsWith('~/') && !filePath.startsWith('/'))
    return [{ field: 'file_path', detail: 'file path must start with ~/ or /' }];
  if (filePath.includes('\0'))
    return [{ field: 'file_path', detail: 'file path must not contain null bytes' }];
  if (Buffer.byteLength(filePath) > FILE_PATH_MAX_BYTES)
    return [{ field: 'file_path', detail: `file path must not exceed ${FILE_PATH_MAX_BYTES} bytes` }];
  return [];
}

export function targetProblems(state: { enabled: boolean; envName: string; filePath: string }): FieldError[] {
  return state.enabled && !state.envName && !state.filePath
    ? [{ field: 'env_name', detail: ENABLED_NEEDS_TARGET }]
    : [];
}

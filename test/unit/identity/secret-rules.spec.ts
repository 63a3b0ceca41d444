import {
  ENABLED_NEEDS_TARGET,
  SECRET_VALUE_MAX_BYTES,
  envNameProblems,
  filePathProblems,
  nameProblems,
  targetProblems,
  valueProblems,
} from '../../../src/modules/identity/secrets/user-secret-rules';

describe('identity: user secret rules (Coder reference D.1; texts and order of the codersdk user secret validation)', () => {
  it('requires a trimmed name without path characters', () => {
    expect(nameProblems('token')).toEqual([]);
    expect(nameProblems(undefined)).toEqual([{ field: 'name', detail: 'Name is required.' }]);
    expect(nameProblems('   ')).toEqual([{ field: 'name', detail: 'Name is required.' }]);
    expect(nameProblems(' token')[0]?.detail).toBe('Name must not have leading or trailing whitespace.');
    expect(nameProblems('a/b')[0]?.detail).toBe('Name must not contain /, ?, or #.');
    expect(nameProblems('x'.repeat(256))[0]?.detail).toBe('Name must be at most 255 bytes.');
  });

  it('limits values to 24 KiB without NUL bytes; optional on update', () => {
    expect(valueProblems('v', true)).toEqual([]);
    expect(valueProblems(undefined, false)).toEqual([]);
    expect(valueProblems('', true)).toEqual([{ field: 'value', detail: 'Value is required.' }]);
    expect(valueProblems('a\0b', false)[0]?.detail).toBe('secret value must not contain null bytes');
    expect(valueProblems('x'.repeat(SECRET_VALUE_MAX_BYTES), true)).toEqual([]);
    expect(valueProblems('x'.repeat(SECRET_VALUE_MAX_BYTES + 1), true)[0]?.detail).toBe(
      `secret value must not exceed ${SECRET_VALUE_MAX_BYTES} bytes`,
    );
  });

  it('accepts POSIX environment names outside the reserved ones', () => {
    expect(envNameProblems('')).toEqual([]);
    expect(envNameProblems('MY_TOKEN')).toEqual([]);
    expect(envNameProblems('1ABC')[0]?.field).toBe('env_name');
    expect(envNameProblems('path')[0]?.detail).toBe('PATH is a reserved environment variable name');
    expect(envNameProblems('CODER')[0]?.detail).toBe(
      'environment variable names starting with CODER_ are reserved for internal use',
    );
    expect(envNameProblems('coder_x')[0]?.detail).toBe(
      'environment variable names starting with CODER_ are reserved for internal use',
    );
    expect(envNameProblems('git_dir')[0]?.detail).toBe(
      'environment variables starting with GIT_ are reserved',
    );
    expect(envNameProblems('LD_PRELOAD')[0]?.detail).toBe(
      'environment variables starting with LD_ are reserved',
    );
    expect(envNameProblems('A'.repeat(257))[0]?.detail).toBe(
      'environment variable name must not exceed 256 bytes',
    );
  });

  it('wants file paths under ~/ or absolute', () => {
    expect(filePathProblems('~/.netrc')).toEqual([]);
    expect(filePathProblems('/etc/x')).toEqual([]);
    expect(filePathProblems('relative/x')).toEqual([
      { field: 'file_path', detail: 'file path must start with ~/ or /' },
    ]);
    expect(filePathProblems(`/${'x'.repeat(4096)}`)[0]?.detail).toBe('file path must not exceed 4096 bytes');
  });

  it('needs a target when enabled', () => {
    expect(targetProblems({ enabled: true, envName: '', filePath: '' })).toEqual([
      { field: 'env_name', detail: ENABLED_NEEDS_TARGET },
    ]);
    expect(targetProblems({ enabled: false, envName: '', filePath: '' })).toEqual([]);
    expect(targetProblems({ enabled: true, envName: 'A', filePath: '' })).toEqual([]);
  });
});

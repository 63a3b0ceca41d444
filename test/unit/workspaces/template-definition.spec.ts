import { InvalidError } from '../../../src/platform/errors/domain-error';
import { parseTemplateDefinition } from '../../../src/modules/workspaces/template-definition';

/** The built-in provisioner's template definition: what is accepted, normalised, and refused with the field. */
function refusal(raw: unknown): { code?: string; field?: string; detail?: string } {
  try {
    parseTemplateDefinition(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidError);
    const invalid = error as InvalidError;
    expect(invalid.message).toBe('Invalid template definition.');
    return { code: invalid.code, field: invalid.fields[0]?.field, detail: invalid.fields[0]?.detail };
  }
  throw new Error('the definition was accepted');
}

describe('parseTemplateDefinition', () => {
  it('accepts the README example and keeps its fields', () => {
    const definition = parseTemplateDefinition({
      directory: 'project',
      files: { 'project/README.md': '# hello\n' },
      env: { GREETING: 'hi' },
      apps: [{ slug: 'code', display_name: 'Code', url: 'http://localhost:8080' }],
      provision_script: 'echo provision',
      startup_script: 'echo start',
      has_ai_task: false,
      vnc_command: '',
      presets: [{ name: 'small', parameters: { cpu: '1' }, prebuilds: { instances: 2 } }],
    });
    expect(definition).toEqual({
      directory: 'project',
      files: { 'project/README.md': '# hello\n' },
      env: { GREETING: 'hi' },
      apps: [
        {
          slug: 'code',
          display_name: 'Code',
          command: undefined,
          url: 'http://localhost:8080',
          icon: undefined,
        },
      ],
      provision_script: 'echo provision',
      startup_script: 'echo start',
      has_ai_task: false,
      vnc_command: '',
      presets: [{ name: 'small', parameters: { cpu: '1' }, prebuilds: { instances: 2 }, default: false }],
    });
  });

  it('accepts an empty object and leaves absent fields out', () => {
    expect(parseTemplateDefinition({})).toEqual({});
  });

  it('normalises presets: no prebuilds, no parameters, default only when true', () => {
    const { presets } = parseTemplateDefinition({
      presets: [{ name: 'a' }, { name: 'b', default: true, parameters: {} }, { name: 'c', default: 'yes' }],
    });
    expect(presets).toEqual([
      { name: 'a', parameters: {}, prebuilds: undefined, default: false },
      { name: 'b', parameters: {}, prebuilds: undefined, default: true },
      { name: 'c', parameters: {}, prebuilds: undefined, default: false },
    ]);
  });

  it.each([null, [], 'x', 3])('refuses a definition that is not an object (%p)', (raw) => {
    expect(refusal(raw)).toEqual({
      code: 'INVALID_DEFINITION',
      field: 'definition',
      detail: 'must be a JSON object',
    });
  });

  it('refuses unknown fields by name', () => {
    expect(refusal({ terraform: 'x' })).toMatchObject({ field: 'terraform', detail: 'is not a known field' });
  });

  it.each(['/etc', '../up', 'a/../b', 'a//b', '', 'a/', 'nul\0'])('refuses the path %p', (bad) => {
    expect(refusal({ files: { [bad]: 'x' } })).toMatchObject({
      field: `files.${bad}`,
      detail: 'must be a relative path inside the workspace without ".." segments',
    });
    expect(refusal({ directory: bad })).toMatchObject({ field: 'directory' });
  });

  it('accepts nested relative paths', () => {
    expect(parseTemplateDefinition({ directory: 'a/b', files: { 'a/b/c.txt': '' } })).toEqual({
      directory: 'a/b',
      files: { 'a/b/c.txt': '' },
    });
  });

  it('limits files to 100 of at most 1 MiB each', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, '']));
    expect(refusal({ files: many })).toMatchObject({ field: 'files', detail: 'at most 100 files' });
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, '']));
    expect(Object.keys(parseTemplateDefinition({ files: hundred }).files!)).toHaveLength(100);
    expect(refusal({ files: { big: 'x'.repeat(1024 * 1024 + 1) } })).toMatchObject({
      field: 'files.big',
      detail: 'is larger than 1 MiB',
    });
    expect(parseTemplateDefinition({ files: { big: 'x'.repeat(1024 * 1024) } }).files!.big).toHaveLength(
      1024 * 1024,
    );
  });

  it('checks string maps and variable names', () => {
    expect(refusal({ env: [] })).toMatchObject({ field: 'env', detail: 'must be an object of strings' });
    expect(refusal({ env: { A: 1 } })).toMatchObject({ field: 'env.A', detail: 'must be a string' });
    expect(refusal({ env: { '1A': 'x' } })).toMatchObject({
      field: 'env.1A',
      detail: 'is not a valid variable name',
    });
    expect(parseTemplateDefinition({ env: { _A1: 'x' } }).env).toEqual({ _A1: 'x' });
  });

  it('checks scripts and has_ai_task types', () => {
    for (const key of ['startup_script', 'provision_script', 'vnc_command'])
      expect(refusal({ [key]: 1 })).toMatchObject({ field: key, detail: 'must be a string' });
    expect(refusal({ has_ai_task: 'true' })).toMatchObject({
      field: 'has_ai_task',
      detail: 'must be a boolean',
    });
  });

  it('checks app slugs: lower-case, single hyphens, at most 32, unique', () => {
    expect(refusal({ apps: {} })).toMatchObject({ field: 'apps', detail: 'must be a list' });
    for (const slug of ['Code', '-a', 'a-', 'a--b', 'a_b', 'x'.repeat(33), undefined])
      expect(refusal({ apps: [{ slug }] })).toMatchObject({ field: 'apps[0].slug' });
    expect(refusal({ apps: [{ slug: 'a' }, { slug: 'a' }] })).toMatchObject({
      field: 'apps[1].slug',
      detail: 'is used twice',
    });
    expect(refusal({ apps: [{ slug: 'a', url: 3 }] })).toMatchObject({ field: 'apps[0].url' });
    expect(parseTemplateDefinition({ apps: [{ slug: 'a-b-1' }] }).apps![0]!.slug).toBe('a-b-1');
  });

  it('checks presets: named, unique, prebuild instances 0 to 100', () => {
    expect(refusal({ presets: {} })).toMatchObject({ field: 'presets', detail: 'must be a list' });
    expect(refusal({ presets: [{ name: '' }] })).toMatchObject({ field: 'presets[0].name' });
    expect(refusal({ presets: [{ name: 'x'.repeat(65) }] })).toMatchObject({ field: 'presets[0].name' });
    expect(refusal({ presets: [{ name: 'a' }, { name: 'a' }] })).toMatchObject({
      field: 'presets[1].name',
      detail: 'is used twice',
    });
    for (const instances of [-1, 101, 1.5, '2'])
      expect(refusal({ presets: [{ name: 'a', prebuilds: { instances } }] })).toMatchObject({
        field: 'presets[0].prebuilds.instances',
      });
    expect(refusal({ presets: [{ name: 'a', parameters: { cpu: 1 } }] })).toMatchObject({
      field: 'presets[0].parameters.cpu',
    });
    expect(
      parseTemplateDefinition({ presets: [{ name: 'a', prebuilds: { instances: 0 } }] }).presets![0]!
        .prebuilds,
    ).toEqual({
      instances: 0,
    });
  });

  it('checks metadata items: key, script, whole seconds; display name and timeout default', () => {
    expect(refusal({ metadata: {} })).toMatchObject({ field: 'metadata', detail: 'must be a list' });
    expect(refusal({ metadata: [{ script: 'true' }] })).toMatchObject({ field: 'metadata[0].key' });
    expect(refusal({ metadata: [{ key: 'a b', script: 'true' }] })).toMatchObject({
      field: 'metadata[0].key',
    });
    expect(refusal({ metadata: [{ key: 'a' }] })).toMatchObject({ field: 'metadata[0].script' });
    expect(
      refusal({
        metadata: [
          { key: 'a', script: 'true' },
          { key: 'a', script: 'true' },
        ],
      }),
    ).toMatchObject({ field: 'metadata[1].key', detail: 'is used twice' });
    for (const interval of [0, 1.5, '2', 86_401])
      expect(refusal({ metadata: [{ key: 'a', script: 'true', interval }] })).toMatchObject({
        field: 'metadata[0].interval',
      });
    expect(refusal({ metadata: [{ key: 'a', script: 'true', timeout: -1 }] })).toMatchObject({
      field: 'metadata[0].timeout',
    });
    expect(parseTemplateDefinition({ metadata: [{ key: 'load', script: 'uptime' }] }).metadata).toEqual([
      { key: 'load', display_name: 'load', script: 'uptime', interval: 10, timeout: 1 },
    ]);
  });
});

import {
  publishedDistTags,
  resolveDistTags,
  withDeprecation,
} from '../../../src/modules/packages/npm/npm-metadata';
import { isValidNpmName, tarballName } from '../../../src/modules/packages/npm/npm-registry.service';

describe('packages: npm dist-tags and version rules', () => {
  it('keeps only tags that name a known version', () => {
    expect(resolveDistTags({ latest: '1.0.0', beta: '9.9.9' }, ['1.0.0'])).toEqual({ latest: '1.0.0' });
  });

  it('makes the highest stable version latest when no tag names one', () => {
    expect(resolveDistTags({}, ['1.0.0', '1.10.0', '1.9.0', '2.0.0-rc.1'])).toEqual({ latest: '1.10.0' });
  });

  it('falls back to the highest prerelease, then to the last version published', () => {
    expect(resolveDistTags({}, ['1.0.0-alpha', '1.0.0-beta'])).toEqual({ latest: '1.0.0-beta' });
    expect(resolveDistTags({}, ['not-semver', 'also-not'])).toEqual({ latest: 'also-not' });
    expect(resolveDistTags({}, [])).toEqual({});
  });

  it('takes the tags of a publish document, ignoring version-named and non-string ones', () => {
    expect(publishedDistTags({ next: '2.0.0', '1.0.0': '1.0.0', bad: 3, '': 'x' }, '2.0.0')).toEqual({
      next: '2.0.0',
    });
    expect(publishedDistTags(undefined, '2.0.0')).toEqual({ latest: '2.0.0' });
    expect(publishedDistTags({ '1.0.0': '1.0.0' }, '2.0.0')).toEqual({ latest: '2.0.0' });
  });

  it('sets or clears the deprecation of a version without touching the stored metadata', () => {
    const stored = { description: 'd', deprecated: 'old' };
    expect(withDeprecation(stored, { deprecated: 'use v2' })).toEqual({
      description: 'd',
      deprecated: 'use v2',
    });
    expect(withDeprecation(stored, { deprecated: '' })).toEqual({ description: 'd' });
    expect(withDeprecation(stored, {})).toEqual({ description: 'd' });
    expect(stored.deprecated).toBe('old');
  });

  it('validates package names and names tarballs without the scope', () => {
    expect(isValidNpmName('@scope/pkg')).toBe(true);
    expect(isValidNpmName('Upper')).toBe(false);
    expect(isValidNpmName('a'.repeat(215))).toBe(false);
    expect(tarballName('@scope/pkg', '1.2.3')).toBe('pkg-1.2.3.tgz');
  });
});

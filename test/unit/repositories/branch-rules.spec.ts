import { isValidGitRefName } from '../../../src/api/gitea/gitea-binding-rules';
import type { BranchProtection } from '../../../src/modules/repositories/branches/branch-protection.entity';
import {
  compileFilePatterns,
  compileRuleName,
  isGlobRuleName,
} from '../../../src/modules/repositories/branches/gitea-glob';
import {
  canForcePush,
  canMerge,
  canPush,
  ProtectionRuleSet,
} from '../../../src/modules/repositories/branches/protection-rules';

function rule(overrides: Partial<BranchProtection>): BranchProtection {
  return {
    id: '1',
    ruleName: 'main',
    priority: '1',
    createdAt: new Date('2026-01-01T00:00:00Z'),
    enablePush: false,
    enablePushWhitelist: false,
    pushWhitelistUserIds: [],
    pushWhitelistTeamIds: [],
    enableForcePush: false,
    enableForcePushAllowlist: false,
    forcePushAllowlistUserIds: [],
    forcePushAllowlistTeamIds: [],
    enableMergeWhitelist: false,
    mergeWhitelistUserIds: [],
    mergeWhitelistTeamIds: [],
    ...overrides,
  } as BranchProtection;
}

describe('branch rule names (Gitea modules/glob, reference §5.6)', () => {
  it.each([
    ['release/*', 'release/v1.17', true],
    ['release/**/v1.17', 'release/test/v1.17', true],
    ['release/**/v1.17', 'release/test/1/v1.17', true],
    ['release/*/v1.17', 'release/test/1/v1.17', false],
    ['*', 'release/v1.16', false],
    ['**', 'release/v1.16', true],
    ['v?', 'v1', true],
    ['v?', 'v/', false],
    ['[abc]x', 'bx', true],
    ['[!abc]x', 'bx', false],
    ['[!abc]x', 'dx', true],
    ['[a-c]x', 'cx', true],
    ['{main,dev}', 'dev', true],
    ['{main,dev}', 'devel', false],
    ['feat\\*', 'feat*', true],
    ['feat\\*', 'feature', false],
    ['Main', 'main', true],
    ['main', 'main2', false],
    ['[unclosed', '[unclosed', true],
  ])('%s matches %s: %s', (name, branch, expected) => {
    expect(compileRuleName(name)(branch)).toBe(expected);
  });

  it('tells plain names from globs', () => {
    expect(isGlobRuleName('release/v1')).toBe(false);
    expect(isGlobRuleName('release/*')).toBe(true);
    expect(isGlobRuleName('{a,b}')).toBe(true);
  });

  it('cannot be stalled by a pathological glob (RE2, linear time)', () => {
    const matches = compileRuleName('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b');
    expect(matches(`${'a'.repeat(5000)}c`)).toBe(false);
  });
});

describe('file patterns', () => {
  it('are semicolon-separated, case-insensitive, with `.` and `/` as separators', () => {
    const matches = compileFilePatterns('docs/*.md; *.LOCK')!;
    expect(matches('docs/Guide.MD')).toBe(true);
    expect(matches('docs/sub/guide.md')).toBe(false);
    expect(matches('yarn.lock')).toBe(true);
    expect(matches('src/yarn.lock')).toBe(false);
    expect(compileFilePatterns(' ; ')).toBeNull();
  });
});

describe('the effective rule', () => {
  it('is the first match by priority, plain before glob at equal priority, then the oldest', () => {
    const glob = rule({ id: '1', ruleName: 'release/*', priority: '1' });
    const plain = rule({ id: '2', ruleName: 'release/v1', priority: '1' });
    const later = rule({ id: '3', ruleName: 'release/**', priority: '2' });
    const set = new ProtectionRuleSet([later, glob, plain]);
    expect(set.effective('release/v1')?.id).toBe('2');
    expect(set.effective('release/v2')?.id).toBe('1');
    expect(set.effective('release/a/b')?.id).toBe('3');
    expect(set.effective('main')).toBeNull();
    expect(set.rules.map((r) => r.id)).toEqual(['2', '1', '3']);
  });
});

describe('who may push, force-push and merge', () => {
  const writer = { userId: '7', canWrite: true, teamIds: new Set<string>() };
  const teamMember = { userId: '8', canWrite: true, teamIds: new Set(['42']) };
  const reader = { userId: '9', canWrite: false, teamIds: new Set<string>() };

  it('push disabled: nobody; whitelist off: writers; on: listed users and teams', () => {
    expect(canPush(rule({ enablePush: false }), writer)).toBe(false);
    expect(canPush(rule({ enablePush: true }), writer)).toBe(true);
    expect(canPush(rule({ enablePush: true }), reader)).toBe(false);
    const listed = rule({
      enablePush: true,
      enablePushWhitelist: true,
      pushWhitelistUserIds: ['9'],
      pushWhitelistTeamIds: ['42'],
    });
    expect(canPush(listed, writer)).toBe(false);
    expect(canPush(listed, teamMember)).toBe(true);
    expect(canPush(listed, reader)).toBe(true);
  });

  it('force push needs push rights, enable_force_push and a place on the allowlist when it is on', () => {
    expect(canForcePush(rule({ enablePush: true }), writer)).toBe(false);
    expect(canForcePush(rule({ enablePush: true, enableForcePush: true }), writer)).toBe(true);
    const allowlist = rule({
      enablePush: true,
      enableForcePush: true,
      enableForcePushAllowlist: true,
      forcePushAllowlistTeamIds: ['42'],
    });
    expect(canForcePush(allowlist, writer)).toBe(false);
    expect(canForcePush(allowlist, teamMember)).toBe(true);
  });

  it('merge: whitelist off means writers', () => {
    expect(canMerge(rule({}), writer)).toBe(true);
    expect(canMerge(rule({}), reader)).toBe(false);
    expect(canMerge(rule({ enableMergeWhitelist: true, mergeWhitelistUserIds: ['7'] }), writer)).toBe(true);
    expect(canMerge(rule({ enableMergeWhitelist: true }), writer)).toBe(false);
  });
});

describe('GitRefName (reference §5.2)', () => {
  it.each(['main', 'feature/x', 'test-👀', 'v1.0', 'a@b'])('accepts %s', (name) =>
    expect(isValidGitRefName(name)).toBe(true),
  );
  it.each([
    '',
    '@',
    'a b',
    'a~b',
    'a^b',
    'a:b',
    'a?b',
    'a*b',
    'a[b',
    'a\\b',
    '/a',
    '.a',
    'a/.b',
    'a..b',
    'a//b',
    'a@{b',
    'a/',
    'a.',
    'a.lock',
    'a.lock/b',
    'tab\there',
  ])('refuses %s', (name) => expect(isValidGitRefName(name)).toBe(false));
});

import {
  hashSecret,
  parseToken,
  randomString,
  secretMatches,
} from '../../../src/modules/identity/api-token-codec';
import { missingGiteaScope } from '../../../src/modules/auth/token-scopes';
import type { Principal } from '../../../src/api/access/principal';

describe('API token codec', () => {
  it('parses <10>-<22>', () => {
    expect(parseToken('abcdefghij-0123456789012345678901')).toEqual({
      id: 'abcdefghij',
      secret: '0123456789012345678901',
    });
  });
  it.each(['', 'abc', 'a-b-c', 'abcdefghi-0123456789012345678901', 'abcdefghij-012345678901234567890'])(
    'refuses %p',
    (raw) => {
      expect(parseToken(raw)).toHaveProperty('problem');
    },
  );
  it('random strings use [0-9A-Za-z]', () => {
    expect(randomString(200)).toMatch(/^[0-9A-Za-z]{200}$/);
  });
  it('compares secrets by hash', () => {
    const stored = hashSecret('s3cret');
    expect(secretMatches('s3cret', stored)).toBe(true);
    expect(secretMatches('s3cres', stored)).toBe(false);
  });
});

describe('Gitea token scopes', () => {
  const principal = (scopes: string[] | null) =>
    ({ token: scopes ? { scopes } : null, scopes: scopes ?? ['all'] }) as unknown as Principal;
  it.each([
    [null, ['admin'], 'DELETE', null],
    [['all'], ['admin'], 'POST', null],
    [['coder:all'], ['admin'], 'POST', null],
    [['read:admin'], ['admin'], 'GET', null],
    [['write:admin'], ['admin'], 'GET', null],
    [['read:admin'], ['admin'], 'POST', 'required=[write:admin], token scope=read:admin'],
    [['write:user'], ['admin'], 'GET', 'required=[read:admin], token scope=write:user'],
    [['read:user', 'read:admin'], ['admin', 'user'], 'GET', null],
    [['read:user'], ['admin', 'user'], 'GET', 'required=[read:admin read:user]'],
  ])('%j for %j on %s', (scopes, categories, method, expected) => {
    const result = missingGiteaScope(
      principal(scopes as string[] | null),
      categories as string[],
      method as string,
    );
    if (expected === null) expect(result).toBeNull();
    else expect(result).toContain(expected);
  });
});

import {
  accessAtLeast,
  accessWithoutMembership,
  teamsPackageAccess,
} from '../../../src/modules/packages/package-permissions.service';

const user = { id: '1', status: 'active', prohibitLogin: false, isAdmin: false } as const;

describe('packages: owner access rules', () => {
  it('gives nothing to suspended or login-prohibited callers, even administrators and owners', () => {
    expect(
      accessWithoutMembership(
        { ...user, status: 'suspended', isAdmin: true },
        { id: '1', visibility: 'public' },
      ),
    ).toEqual({ mode: 'none', final: true });
    expect(
      accessWithoutMembership({ ...user, prohibitLogin: true }, { id: '1', visibility: 'public' }),
    ).toEqual({
      mode: 'none',
      final: true,
    });
  });

  it('lets the owner itself and site administrators administer', () => {
    expect(accessWithoutMembership(user, { id: '1', visibility: 'private' })).toEqual({
      mode: 'admin',
      final: true,
    });
    expect(accessWithoutMembership({ ...user, isAdmin: true }, { id: '2', visibility: 'private' }).mode).toBe(
      'admin',
    );
  });

  it('lets others read public owners, signed-in users limited ones, and nobody private ones', () => {
    expect(accessWithoutMembership(null, { id: '2', visibility: 'public' })).toEqual({
      mode: 'read',
      final: false,
    });
    expect(accessWithoutMembership(null, { id: '2', visibility: 'limited' }).mode).toBe('none');
    expect(accessWithoutMembership(user, { id: '2', visibility: 'limited' }).mode).toBe('read');
    expect(accessWithoutMembership(user, { id: '2', visibility: 'private' }).mode).toBe('none');
  });

  it("gives members the best of their teams' modes on the packages unit, at least read", () => {
    expect(teamsPackageAccess([])).toBe('read');
    expect(teamsPackageAccess([{ units: ['repo.code'], permission: 'admin' }])).toBe('read');
    expect(teamsPackageAccess([{ units: [], permission: 'write' }])).toBe('write');
    expect(
      teamsPackageAccess([
        { units: ['repo.packages'], permission: 'write' },
        { units: ['repo.packages'], permission: 'owner' },
      ]),
    ).toBe('admin');
  });

  it('orders access modes', () => {
    expect(accessAtLeast('write', 'read')).toBe(true);
    expect(accessAtLeast('read', 'write')).toBe(false);
    expect(accessAtLeast('none', 'none')).toBe(true);
  });
});

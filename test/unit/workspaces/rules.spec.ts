import { InvalidError } from '../../../src/platform/errors/domain-error';
import {
  aclActions,
  aclRole,
  applyAclChanges,
  buildTimeStatsFrom,
  checkName,
  isBuildActive,
  isValidName,
  pageOf,
  taskAlreadyIn,
} from '../../../src/modules/workspaces/workspace-rules';

/** Pure rules of workspaces.service.ts and tasks.service.ts: names, one build at a time, sharing roles, stats, pages. */
describe('workspace names', () => {
  it.each(['a', 'dev', 'my-ws', 'A1-b2', 'x'.repeat(32)])('accepts %p', (name) => {
    expect(isValidName(name)).toBe(true);
    expect(() => checkName(name)).not.toThrow();
  });

  it.each(['', '-a', 'a-', 'a--b', 'a_b', 'a b', 'ünï', 'x'.repeat(33)])('refuses %p', (name) => {
    expect(isValidName(name)).toBe(false);
  });

  it('is 422 INVALID_NAME with Coder text for the field', () => {
    try {
      checkName('bad name', 'workspace_name');
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidError);
      expect((error as InvalidError).code).toBe('INVALID_NAME');
      expect((error as InvalidError).fields).toEqual([
        {
          field: 'workspace_name',
          detail: 'Validation failed for tag "workspace_name" with value: "bad name"',
        },
      ]);
    }
  });
});

describe('one build at a time', () => {
  it.each(['pending', 'running', 'canceling'])('a latest build whose job is %s is active', (status) => {
    expect(isBuildActive({ status })).toBe(true);
  });

  it.each(['succeeded', 'failed', 'canceled'])('a latest build whose job is %s is not', (status) => {
    expect(isBuildActive({ status })).toBe(false);
  });

  it('a workspace without builds has none active', () => {
    expect(isBuildActive(undefined)).toBe(false);
  });
});

describe('task pause and resume', () => {
  it('refuses a transition the latest build already succeeded at', () => {
    expect(taskAlreadyIn({ transition: 'stop', status: 'succeeded' }, 'stop')).toBe(true);
    expect(taskAlreadyIn({ transition: 'start', status: 'succeeded' }, 'start')).toBe(true);
  });

  it('allows the other transition, a failed one, or no build', () => {
    expect(taskAlreadyIn({ transition: 'start', status: 'succeeded' }, 'stop')).toBe(false);
    expect(taskAlreadyIn({ transition: 'stop', status: 'failed' }, 'stop')).toBe(false);
    expect(taskAlreadyIn({ transition: 'stop', status: 'running' }, 'stop')).toBe(false);
    expect(taskAlreadyIn(undefined, 'start')).toBe(false);
  });
});

describe('workspace sharing', () => {
  const owner = '00000000-0000-0000-0000-000000000001';
  const bob = '00000000-0000-0000-0000-000000000002';
  const carol = '00000000-0000-0000-0000-000000000003';
  const team = '00000000-0000-0000-0000-0000000000aa';

  it('maps roles to actions and back', () => {
    expect(aclActions('')).toBeNull();
    expect(aclActions('use')).toEqual(['read', 'ssh', 'application_connect']);
    expect(aclActions('admin')).toEqual([
      'read',
      'ssh',
      'application_connect',
      'update',
      'start',
      'stop',
      'share',
    ]);
    expect(aclRole(aclActions('use')!)).toBe('use');
    expect(aclRole(aclActions('admin')!)).toBe('admin');
  });

  it('refuses an unknown role with the field', () => {
    expect(() => aclActions('owner')).toThrow(InvalidError);
    try {
      aclActions('owner');
    } catch (error) {
      expect((error as InvalidError).fields[0]).toEqual({
        field: 'role',
        detail: 'role "owner" is not a valid workspace role',
      });
    }
  });

  it('adds, replaces and removes entries without touching the current ACLs', () => {
    const current = {
      ownerId: owner,
      userAcl: { [bob]: ['read', 'ssh', 'application_connect'] },
      groupAcl: { [team]: ['read'] },
    };
    const next = applyAclChanges(current, {
      userRoles: { [bob]: 'admin', [carol]: 'use' },
      groupRoles: { [team]: '' },
    });
    expect(next.userAcl).toEqual({
      [bob]: ['read', 'ssh', 'application_connect', 'update', 'start', 'stop', 'share'],
      [carol]: ['read', 'ssh', 'application_connect'],
    });
    expect(next.groupAcl).toEqual({});
    expect(current.userAcl).toEqual({ [bob]: ['read', 'ssh', 'application_connect'] });
    expect(current.groupAcl).toEqual({ [team]: ['read'] });
    expect(
      applyAclChanges({ ownerId: owner, ...next }, { userRoles: { [bob]: '' }, groupRoles: {} }).userAcl,
    ).toEqual({
      [carol]: ['read', 'ssh', 'application_connect'],
    });
  });

  it("refuses a change of the owner's role", () => {
    expect(() =>
      applyAclChanges(
        { ownerId: owner, userAcl: {}, groupAcl: {} },
        { userRoles: { [owner]: 'use' }, groupRoles: {} },
      ),
    ).toThrow(InvalidError);
  });
});

describe('template build time stats', () => {
  it('gives every template start, stop and delete, rounded milliseconds where builds succeeded', () => {
    const stats = buildTimeStatsFrom(
      ['t1', 't2'],
      [
        { template_id: 't1', transition: 'start', p50: '1234.4', p95: 2000.6 },
        { template_id: 't1', transition: 'delete', p50: 10, p95: 10 },
      ],
    );
    expect(stats.get('t1')).toEqual({
      start: { P50: 1234, P95: 2001 },
      stop: { P50: null, P95: null },
      delete: { P50: 10, P95: 10 },
    });
    expect(stats.get('t2')).toEqual({
      start: { P50: null, P95: null },
      stop: { P50: null, P95: null },
      delete: { P50: null, P95: null },
    });
  });
});

describe('pages of visible workspaces', () => {
  const rows = [1, 2, 3, 4, 5];
  it('takes limit rows from the offset, or all from it when the limit is 0', () => {
    expect(pageOf(rows, { limit: 2, offset: 1 })).toEqual([2, 3]);
    expect(pageOf(rows, { limit: 0, offset: 3 })).toEqual([4, 5]);
    expect(pageOf(rows, { limit: 10, offset: 4 })).toEqual([5]);
    expect(pageOf(rows, { limit: 2, offset: 9 })).toEqual([]);
  });
});

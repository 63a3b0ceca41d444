import {
  AdminPolicy,
  type AdminManagementPolicy,
  type GrantGraph,
  type GrantNode,
  type PolicyUser,
} from '../../../src/modules/admin-users/admin-policy';

/**
 * The administrator management policy matrix (spec 3, rules 1-4) over an in-memory grant graph.
 * Fixture: root (bootstrap, super) -> a -> b -> c; x granted by root (sibling of a);
 * s a second super granted by root; n an admin without grantor; u a plain user.
 */
type Name = 'root' | 'a' | 'b' | 'c' | 'x' | 's' | 'n' | 'u' | 't' | 's2' | 'q';

function fixture(): Map<Name, PolicyUser> {
  const ids: Record<Name, string> = {
    root: '1',
    a: '2',
    b: '3',
    c: '4',
    x: '5',
    s: '6',
    n: '7',
    u: '8',
    t: '9',
    s2: '10',
    q: '11',
  };
  const admin = (name: Name, grantor: Name | null, extra: Partial<PolicyUser> = {}): PolicyUser => ({
    id: ids[name],
    name,
    isAdmin: true,
    isSuperAdmin: false,
    adminGrantedBy: grantor === null ? null : ids[grantor],
    hasBootstrapGrant: false,
    ...extra,
  });
  return new Map<Name, PolicyUser>([
    ['root', admin('root', null, { hasBootstrapGrant: true, isSuperAdmin: true })],
    ['a', admin('a', 'root')],
    ['b', admin('b', 'a')],
    ['c', admin('c', 'b')],
    ['x', admin('x', 'root')],
    ['s', admin('s', 'root', { isSuperAdmin: true })],
    ['n', admin('n', null)],
    ['u', { ...admin('u', null), isAdmin: false }],
  ]);
}

class MemoryGraph implements GrantGraph {
  readonly tombstones = new Map<string, string | null>();
  constructor(readonly users: Map<Name, PolicyUser>) {}
  async node(id: string): Promise<GrantNode | null> {
    const user = [...this.users.values()].find((candidate) => candidate.id === id);
    if (user) return { isAdmin: user.isAdmin, adminGrantedBy: user.adminGrantedBy };
    return this.tombstones.has(id)
      ? { isAdmin: false, adminGrantedBy: this.tombstones.get(id) ?? null }
      : null;
  }
  async countSuperAdmins(): Promise<number> {
    return [...this.users.values()].filter((user) => user.isSuperAdmin).length;
  }
}

type Op = { op: 'canManage' } | { op: 'flag'; requested: boolean } | { op: 'edit' } | { op: 'delete' };

interface Row {
  id: string;
  superAdmin: boolean;
  policy: AdminManagementPolicy;
  caller: Name;
  target: Name;
  action: Op;
  /** Changes to the fixture before the check. */
  setup?: (users: Map<Name, PolicyUser>, graph: MemoryGraph) => void;
  expected: boolean | 'apply' | 'unchanged' | string | null;
}

const GI: AdminManagementPolicy = 'grantor-inheritance';
const GO: AdminManagementPolicy = 'grantor-only';
const SAO: AdminManagementPolicy = 'super-admins-only';
const ALL_POLICIES = [GI, GO, SAO];

const demote = (name: Name) => (users: Map<Name, PolicyUser>) => {
  users.get(name)!.isAdmin = false;
};
const remove = (name: Name) => (users: Map<Name, PolicyUser>, graph: MemoryGraph) => {
  const user = users.get(name)!;
  graph.tombstones.set(user.id, user.adminGrantedBy);
  users.delete(name);
};
const chain = (message: string) => `administrator ${message} is outside your management chain`;

// D5 fixture: s2 super admin whose recorded grantor is t (an admin).
const d5 = (users: Map<Name, PolicyUser>) => {
  users.set('t', {
    id: '9',
    name: 't',
    isAdmin: true,
    isSuperAdmin: false,
    adminGrantedBy: '1',
    hasBootstrapGrant: false,
  });
  users.set('s2', {
    id: '10',
    name: 's2',
    isAdmin: true,
    isSuperAdmin: true,
    adminGrantedBy: '9',
    hasBootstrapGrant: false,
  });
};
// D6/D7 fixture: a (not super) is the recorded grantor of super q.
const superQ = (onlySuper: boolean) => (users: Map<Name, PolicyUser>) => {
  users.set('q', {
    id: '11',
    name: 'q',
    isAdmin: true,
    isSuperAdmin: true,
    adminGrantedBy: '2',
    hasBootstrapGrant: false,
  });
  if (onlySuper) {
    users.get('root')!.isSuperAdmin = false;
    users.get('s')!.isSuperAdmin = false;
  }
};

const rows: Row[] = [
  // Rule 2 (canManage)
  {
    id: 'R2.6 grantor-inheritance, direct grantor',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'b',
    action: { op: 'canManage' },
    expected: true,
  },
  {
    id: 'R2.6 grandparent while b is a live admin',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'c',
    action: { op: 'canManage' },
    expected: false,
  },
  {
    id: 'R2.6 inherits past a demoted b',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'c',
    action: { op: 'canManage' },
    setup: demote('b'),
    expected: true,
  },
  {
    id: 'R2.6 inherits past a deleted b (tombstone)',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'c',
    action: { op: 'canManage' },
    setup: remove('b'),
    expected: true,
  },
  {
    id: 'R2.6 root manages a three-level chain only through live links',
    superAdmin: false,
    policy: GI,
    caller: 'root',
    target: 'c',
    action: { op: 'canManage' },
    setup: (u, g) => {
      remove('b')(u, g);
      demote('a')(u);
    },
    expected: true,
  },
  {
    id: 'R2.6 chain ends at an unknown grantor',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'c',
    action: { op: 'canManage' },
    setup: (u) => {
      u.get('c')!.adminGrantedBy = '999';
    },
    expected: false,
  },
  {
    id: 'R2.6 grant cycle ends the walk',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'c',
    action: { op: 'canManage' },
    setup: (u) => {
      demote('b')(u);
      u.get('b')!.adminGrantedBy = u.get('c')!.id;
    },
    expected: false,
  },
  {
    id: 'R2.5 grantor-only, recorded grantor',
    superAdmin: false,
    policy: GO,
    caller: 'a',
    target: 'b',
    action: { op: 'canManage' },
    expected: true,
  },
  {
    id: 'R2.5 grantor-only does not inherit',
    superAdmin: false,
    policy: GO,
    caller: 'a',
    target: 'c',
    action: { op: 'canManage' },
    setup: demote('b'),
    expected: false,
  },
  {
    id: 'R2.7 super-admins-only refuses an admin',
    superAdmin: false,
    policy: SAO,
    caller: 'a',
    target: 'b',
    action: { op: 'canManage' },
    expected: false,
  },
  ...ALL_POLICIES.map((policy): Row => ({
    id: `R2.1 non-admin target (${policy})`,
    superAdmin: false,
    policy,
    caller: 'a',
    target: 'u',
    action: { op: 'canManage' },
    expected: true,
  })),
  ...ALL_POLICIES.map((policy): Row => ({
    id: `R2.2 self (${policy})`,
    superAdmin: false,
    policy,
    caller: 'a',
    target: 'a',
    action: { op: 'canManage' },
    expected: true,
  })),
  {
    id: 'R2.3 super caller, S on',
    superAdmin: true,
    policy: SAO,
    caller: 's',
    target: 'b',
    action: { op: 'canManage' },
    expected: true,
  },
  {
    id: 'R2.3 super flag ineffective when S off',
    superAdmin: false,
    policy: SAO,
    caller: 's',
    target: 'b',
    action: { op: 'canManage' },
    expected: false,
  },
  {
    id: 'R2.4 non-admin caller',
    superAdmin: false,
    policy: GI,
    caller: 'u',
    target: 'b',
    action: { op: 'canManage' },
    expected: false,
  },
  {
    id: 'sibling is outside the chain (S off)',
    superAdmin: false,
    policy: GI,
    caller: 'x',
    target: 'b',
    action: { op: 'canManage' },
    expected: false,
  },
  {
    id: 'sibling is outside the chain (S on)',
    superAdmin: true,
    policy: GI,
    caller: 'x',
    target: 'b',
    action: { op: 'canManage' },
    expected: false,
  },
  {
    id: "admin without grantor is nobody's",
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'n',
    action: { op: 'canManage' },
    expected: false,
  },
  {
    id: 'root manages its direct grantee',
    superAdmin: false,
    policy: GI,
    caller: 'root',
    target: 'a',
    action: { op: 'canManage' },
    expected: true,
  },

  // Rule 3 (the Admin flag)
  {
    id: 'A2 S off: demotion applies',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'apply',
  },
  {
    id: 'A2 S off: even super-admins-only applies',
    superAdmin: false,
    policy: SAO,
    caller: 'x',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'apply',
  },
  {
    id: 'A3 unchanged value',
    superAdmin: true,
    policy: GI,
    caller: 'a',
    target: 'b',
    action: { op: 'flag', requested: true },
    expected: 'unchanged',
  },
  {
    id: 'A4 super caller demotes',
    superAdmin: true,
    policy: GI,
    caller: 's',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'apply',
  },
  {
    id: 'A4 super caller under super-admins-only',
    superAdmin: true,
    policy: SAO,
    caller: 's',
    target: 'u',
    action: { op: 'flag', requested: true },
    expected: 'apply',
  },
  {
    id: 'A5 non-admin caller: no change',
    superAdmin: true,
    policy: GI,
    caller: 'u',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'unchanged',
  },
  {
    id: 'A6 super target: no change',
    superAdmin: true,
    policy: GI,
    caller: 'a',
    target: 's',
    action: { op: 'flag', requested: false },
    expected: 'unchanged',
  },
  {
    id: 'A7 grantor-inheritance: any admin promotes',
    superAdmin: true,
    policy: GI,
    caller: 'x',
    target: 'u',
    action: { op: 'flag', requested: true },
    expected: 'apply',
  },
  {
    id: 'A7 grantor-only: any admin promotes',
    superAdmin: true,
    policy: GO,
    caller: 'x',
    target: 'u',
    action: { op: 'flag', requested: true },
    expected: 'apply',
  },
  {
    id: 'A8 demotion by the effective grantor',
    superAdmin: true,
    policy: GI,
    caller: 'a',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'apply',
  },
  {
    id: 'A8 grantor-only demotion by the grantor',
    superAdmin: true,
    policy: GO,
    caller: 'a',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'apply',
  },
  {
    id: 'A9 demotion outside the chain: no change',
    superAdmin: true,
    policy: GI,
    caller: 'x',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'unchanged',
  },
  {
    id: 'A10 super-admins-only, non-super promotes: no change',
    superAdmin: true,
    policy: SAO,
    caller: 'a',
    target: 'u',
    action: { op: 'flag', requested: true },
    expected: 'unchanged',
  },
  {
    id: 'A10 super-admins-only, non-super demotes: no change',
    superAdmin: true,
    policy: SAO,
    caller: 'a',
    target: 'b',
    action: { op: 'flag', requested: false },
    expected: 'unchanged',
  },

  // Rule 4 (EditUser 403)
  ...ALL_POLICIES.map((policy): Row => ({
    id: `E1 bootstrap target (${policy})`,
    superAdmin: true,
    policy,
    caller: 's',
    target: 'root',
    action: { op: 'edit' },
    expected: 'the bootstrap administrator can only be changed by itself',
  })),
  {
    id: 'E1 bootstrap admin edits itself',
    superAdmin: true,
    policy: GI,
    caller: 'root',
    target: 'root',
    action: { op: 'edit' },
    expected: null,
  },
  {
    id: 'E2 super target, non-super caller (before E3)',
    superAdmin: true,
    policy: GI,
    caller: 'a',
    target: 's',
    action: { op: 'edit' },
    expected: 'only a super administrator can change a super administrator',
  },
  {
    id: 'E2 super target by super caller',
    superAdmin: true,
    policy: GI,
    caller: 'root',
    target: 's',
    action: { op: 'edit' },
    setup: (u) => {
      u.get('root')!.hasBootstrapGrant = false;
    },
    expected: null,
  },
  {
    id: 'E3 admin outside the chain',
    superAdmin: false,
    policy: GI,
    caller: 'x',
    target: 'b',
    action: { op: 'edit' },
    expected: chain('b'),
  },
  {
    id: 'E3 super-admins-only with S off: no admin edits another',
    superAdmin: false,
    policy: SAO,
    caller: 'a',
    target: 'b',
    action: { op: 'edit' },
    expected: chain('b'),
  },
  {
    id: 'edit a plain user',
    superAdmin: false,
    policy: SAO,
    caller: 'x',
    target: 'u',
    action: { op: 'edit' },
    expected: null,
  },
  {
    id: 'edit a managed admin',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'b',
    action: { op: 'edit' },
    expected: null,
  },
  {
    id: 'edit oneself',
    superAdmin: true,
    policy: SAO,
    caller: 'a',
    target: 'a',
    action: { op: 'edit' },
    expected: null,
  },

  // Delete 403s (D2-D7)
  {
    id: 'D2 self',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'a',
    action: { op: 'delete' },
    expected: 'you cannot delete yourself',
  },
  ...ALL_POLICIES.map((policy): Row => ({
    id: `D3 bootstrap (${policy})`,
    superAdmin: true,
    policy,
    caller: 's',
    target: 'root',
    action: { op: 'delete' },
    expected: 'the bootstrap administrator cannot be deleted',
  })),
  {
    id: 'D4 outside the chain',
    superAdmin: false,
    policy: GI,
    caller: 'x',
    target: 'b',
    action: { op: 'delete' },
    expected: chain('b'),
  },
  {
    id: 'D4 grantor-only, grandchild',
    superAdmin: false,
    policy: GO,
    caller: 'a',
    target: 'c',
    action: { op: 'delete' },
    expected: chain('c'),
  },
  {
    id: "D5 the caller's own grantor",
    superAdmin: true,
    policy: GI,
    caller: 's2',
    target: 't',
    action: { op: 'delete' },
    setup: d5,
    expected: 'you cannot delete the administrator who granted your privileges',
  },
  {
    id: 'D6 last super administrator',
    superAdmin: true,
    policy: GI,
    caller: 'a',
    target: 'q',
    action: { op: 'delete' },
    setup: superQ(true),
    expected: 'can not delete the last super administrator [uid: 11]',
  },
  {
    id: 'D7 super by a non-super',
    superAdmin: true,
    policy: GI,
    caller: 'a',
    target: 'q',
    action: { op: 'delete' },
    setup: superQ(false),
    expected: 'only a super administrator can delete a super administrator',
  },
  {
    id: 'super deletes super (another remains)',
    superAdmin: true,
    policy: GI,
    caller: 'root',
    target: 's',
    action: { op: 'delete' },
    expected: null,
  },
  {
    id: 'super flag ignored with S off (q deletable by its grantor)',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'q',
    action: { op: 'delete' },
    setup: superQ(true),
    expected: null,
  },
  {
    id: 'delete a managed admin',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'b',
    action: { op: 'delete' },
    expected: null,
  },
  {
    id: 'delete a plain user',
    superAdmin: false,
    policy: SAO,
    caller: 'x',
    target: 'u',
    action: { op: 'delete' },
    expected: null,
  },
  {
    id: 'after b is deleted, a manages c',
    superAdmin: false,
    policy: GI,
    caller: 'a',
    target: 'c',
    action: { op: 'delete' },
    setup: remove('b'),
    expected: null,
  },
];

describe('administrator management policy', () => {
  it.each(rows.map((row) => [row.id, row] as const))('%s', async (_id, row) => {
    const users = fixture();
    const graph = new MemoryGraph(users);
    row.setup?.(users, graph);
    const policy = new AdminPolicy({ superAdminEnabled: row.superAdmin, policy: row.policy }, graph);
    const caller = users.get(row.caller)!;
    const target = users.get(row.target)!;
    let actual: unknown;
    switch (row.action.op) {
      case 'canManage':
        actual = await policy.canManage(caller, target);
        break;
      case 'flag':
        actual = await policy.decideAdminFlag(caller, target, row.action.requested);
        break;
      case 'edit':
        actual = await policy.editRefusal(caller, target);
        break;
      case 'delete':
        actual = await policy.deleteRefusal(caller, target);
        break;
    }
    expect(actual).toEqual(row.expected);
  });

  it('isSuper needs both the flag and the setting', () => {
    const users = fixture();
    const on = new AdminPolicy({ superAdminEnabled: true, policy: GI }, new MemoryGraph(users));
    const off = new AdminPolicy({ superAdminEnabled: false, policy: GI }, new MemoryGraph(users));
    expect(on.isSuper(users.get('s')!)).toBe(true);
    expect(on.isSuper(users.get('a')!)).toBe(false);
    expect(off.isSuper(users.get('s')!)).toBe(false);
  });

  it('effectiveGrantor walks demoted and deleted links of a three-level chain', async () => {
    const users = fixture();
    const graph = new MemoryGraph(users);
    const policy = new AdminPolicy({ superAdminEnabled: false, policy: GI }, graph);
    expect(await policy.effectiveGrantor(users.get('c')!)).toBe('3');
    demote('b')(users);
    expect(await policy.effectiveGrantor(users.get('c')!)).toBe('2');
    remove('a')(users, graph);
    expect(await policy.effectiveGrantor(users.get('c')!)).toBe('1');
    expect(await policy.effectiveGrantor(users.get('n')!)).toBeNull();
  });
});

/**
 * The full matrix of rule 2 on the chain root -> a -> b -> c (plus x, a sibling of a, and a super s):
 * every setting (S on/off x each policy), with b live, demoted or deleted. Expected values are
 * written out per column: GI = grantor-inheritance, GO = grantor-only, SAO = super-admins-only;
 * lower case = S off, upper case = S on. 1 = may manage, 0 = may not.
 */
describe('rule 2 matrix over a three-level grantor chain', () => {
  type B = 'live' | 'demoted' | 'deleted';
  const columns = ['gi', 'go', 'sao', 'GI', 'GO', 'SAO'] as const;
  //                  caller  target  b          gi go sao GI GO SAO
  const matrix: [Name, Name, B, string][] = [
    ['a', 'b', 'live', '1 1 0 1 1 0'],
    ['b', 'c', 'live', '1 1 0 1 1 0'],
    ['a', 'c', 'live', '0 0 0 0 0 0'],
    ['root', 'c', 'live', '0 0 0 1 1 1'], // root is super: only effective with S on
    ['root', 'a', 'live', '1 1 0 1 1 1'],
    ['x', 'b', 'live', '0 0 0 0 0 0'],
    ['s', 'c', 'live', '0 0 0 1 1 1'],
    ['c', 'a', 'live', '0 0 0 0 0 0'], // no manager of one's grantor
    ['b', 'a', 'live', '0 0 0 0 0 0'],
    ['a', 'c', 'demoted', '1 0 0 1 0 0'], // inheritance passes over a demoted b
    ['root', 'c', 'demoted', '0 0 0 1 1 1'],
    ['x', 'c', 'demoted', '0 0 0 0 0 0'],
    ['a', 'c', 'deleted', '1 0 0 1 0 0'], // and over a deleted b (its tombstone)
    ['x', 'c', 'deleted', '0 0 0 0 0 0'],
    ['a', 'u', 'live', '1 1 1 1 1 1'], // a non-admin target: anyone
    ['u', 'c', 'live', '0 0 0 0 0 0'], // a non-admin caller on an admin: nobody
    ['c', 'c', 'live', '1 1 1 1 1 1'], // oneself
  ];
  const cases = matrix.flatMap(([caller, target, b, expected]) =>
    expected.split(' ').map((bit, i) => [columns[i]!, caller, target, b, bit === '1'] as const),
  );

  it.each(cases)('%s: %s manages %s (b %s) = %s', async (column, caller, target, b, expected) => {
    const users = fixture();
    const graph = new MemoryGraph(users);
    if (b === 'demoted') demote('b')(users);
    if (b === 'deleted') remove('b')(users, graph);
    const policyName = { gi: GI, go: GO, sao: SAO }[column.toLowerCase() as 'gi' | 'go' | 'sao'];
    const policy = new AdminPolicy(
      { superAdminEnabled: column === column.toUpperCase(), policy: policyName },
      graph,
    );
    expect(await policy.canManage(users.get(caller)!, users.get(target)!)).toBe(expected);
  });
});

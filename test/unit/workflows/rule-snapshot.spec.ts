import { RuleSnapshot, scopeKey, type StoredRule } from '../../../src/modules/workflows/engine/rule-snapshot';

const NOTIFY = 'OCA\\FlowNotifications\\Flow\\Operation';

function rule(id: number, userId: string, name = `rule ${id}`): StoredRule {
  return {
    id,
    class: NOTIFY,
    name,
    checks: [{ class: 'OCA\\WorkflowEngine\\Check\\FileName', operator: 'is', value: `f${id}` }],
    operation: '',
    entity: 'OCA\\WorkflowEngine\\Entity\\File',
    events: ['OCP\\Files\\Events\\Node\\NodeCreatedEvent'],
    description: '',
    scopeType: 1,
    scopeUserId: userId,
    scopeActorName: `user${userId}`,
  };
}

describe('RuleSnapshot.withChanges (a rule change applied without a reload)', () => {
  const alice = scopeKey(1, '1');
  const bob = scopeKey(1, '2');

  it('adds, replaces and removes rules, ids ascending', () => {
    const before = new RuleSnapshot([rule(1, '1'), rule(3, '2')]);
    const added = before.withChanges(new Set([2]), [rule(2, '1')]);
    expect(added.rules.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(added.byScope.get(alice)!.map((r) => r.id)).toEqual([1, 2]);
    const renamed = added.withChanges(new Set([1]), [rule(1, '1', 'renamed')]);
    expect(renamed.byScope.get(alice)!.map((r) => r.name)).toEqual(['renamed', 'rule 2']);
    const removed = renamed.withChanges(new Set([3]), []);
    expect(removed.rules.map((r) => r.id)).toEqual([1, 2]);
    expect(removed.byScope.get(bob)).toBeUndefined();
    expect(before.rules.map((r) => r.id)).toEqual([1, 3]); // the old snapshot is untouched
  });

  it("keeps other scopes' indexes and compiled rules, drops the changed scope's", () => {
    const before = new RuleSnapshot([rule(1, '1'), rule(2, '2')]);
    const aliceIndex = {};
    const bobIndex = {};
    before.indexCache.set(alice, aliceIndex);
    before.indexCache.set(bob, bobIndex);
    const aliceCompiled = before.rulesOf(alice, NOTIFY);
    const bobCompiled = before.rulesOf(bob, NOTIFY);
    const after = before.withChanges(new Set([5]), [rule(5, '2')]);
    expect(after.indexCache.get(alice)).toBe(aliceIndex);
    expect(after.indexCache.has(bob)).toBe(false);
    expect(after.rulesOf(alice, NOTIFY)).toBe(aliceCompiled);
    expect(after.rulesOf(bob, NOTIFY)).not.toBe(bobCompiled);
    expect(after.rulesOf(bob, NOTIFY).map((parsed) => parsed.rule.id)).toEqual([2, 5]);
  });

  it('a rule created above every id, then changed and deleted, is found in its scope each time', () => {
    const before = new RuleSnapshot([rule(1, '1'), rule(2, '2')]);
    const created = before.withChanges(new Set([10]), [rule(10, '1')]);
    expect(created.byScope.get(alice)!.map((r) => r.id)).toEqual([1, 10]);
    const moved = created.withChanges(new Set([10]), [rule(10, '2')]);
    expect(moved.byScope.get(alice)!.map((r) => r.id)).toEqual([1]);
    expect(moved.byScope.get(bob)!.map((r) => r.id)).toEqual([2, 10]);
    const deleted = moved.withChanges(new Set([10]), []);
    expect(deleted.rules.map((r) => r.id)).toEqual([1, 2]);
    expect(deleted.byScope.get(bob)!.map((r) => r.id)).toEqual([2]);
  });

  it('a create applied below the highest id (concurrent creates out of order) searches no scope', () => {
    const before = new RuleSnapshot([rule(1, '1'), rule(5, '2')]);
    const bobRules = before.byScope.get(bob)!;
    const searched = jest.spyOn(bobRules, 'some');
    const created = before.withChanges(new Set([3]), [rule(3, '1')], true);
    expect(searched).not.toHaveBeenCalled();
    expect(created.byScope.get(alice)!.map((r) => r.id)).toEqual([1, 3]);
    expect(created.byScope.get(bob)).toBe(bobRules);
    // The same change as an update looks for the rule's old scope.
    before.withChanges(new Set([3]), [rule(3, '1')]);
    expect(searched).toHaveBeenCalled();
    // A create already in the snapshot (a reload saw its commit first) is not listed twice.
    expect(created.withChanges(new Set([3]), [rule(3, '1')], true).rules.map((r) => r.id)).toEqual([1, 3, 5]);
  });

  it('a rule moving between scopes drops both scopes', () => {
    const before = new RuleSnapshot([rule(1, '1'), rule(2, '2')]);
    before.indexCache.set(alice, {});
    before.indexCache.set(bob, {});
    const after = before.withChanges(new Set([1]), [rule(1, '2')]);
    expect(after.indexCache.size).toBe(0);
    expect(after.byScope.get(bob)!.map((r) => r.id)).toEqual([1, 2]);
  });
});

describe('RuleSnapshot.eventClasses', () => {
  it('follows the changes (event name → operation classes)', () => {
    const before = new RuleSnapshot([rule(1, '1')]);
    expect([...before.eventClasses.get('OCP\\Files\\Events\\Node\\NodeCreatedEvent')!]).toEqual([NOTIFY]);
    const moved = before.withChanges(new Set([1]), [{ ...rule(1, '1'), events: ['OCP\\Other'] }]);
    expect(moved.eventClasses.has('OCP\\Files\\Events\\Node\\NodeCreatedEvent')).toBe(false);
    expect([...moved.eventClasses.get('OCP\\Other')!]).toEqual([NOTIFY]);
    expect(before.eventClasses.has('OCP\\Other')).toBe(false);
  });
});

describe('RuleSnapshot: event classes, a deleted user, a renamed user (issue 52.4: no full rebuild)', () => {
  const CREATED = 'OCP\\Files\\Events\\Node\\NodeCreatedEvent';
  const WRITTEN = 'OCP\\Files\\Events\\Node\\NodeWrittenEvent';
  const OTHER = 'OCA\\Other\\Operation';
  const withEvents = (base: StoredRule, events: string[], cls = base.class): StoredRule => ({
    ...base,
    events,
    class: cls,
  });

  it('keeps the event → classes map right across changes, as a fresh load computes it', () => {
    const before = new RuleSnapshot([rule(1, '1'), withEvents(rule(2, '2'), [WRITTEN], OTHER)]);
    expect([...before.eventClasses.get(CREATED)!]).toEqual([NOTIFY]);
    // A second listener of CREATED, of another class; then the only NOTIFY listener goes.
    const added = before.withChanges(new Set([3]), [withEvents(rule(3, '2'), [CREATED, WRITTEN], OTHER)]);
    expect([...added.eventClasses.get(CREATED)!].sort()).toEqual([NOTIFY, OTHER].sort());
    const removed = added.withChanges(new Set([1]), []);
    expect([...removed.eventClasses.get(CREATED)!]).toEqual([OTHER]);
    // Its last listener gone, the event has no entry (the engine's fast path returns at once).
    const none = removed.withChanges(new Set([3]), []);
    expect(none.eventClasses.get(CREATED)).toBeUndefined();
    expect([...none.eventClasses.get(WRITTEN)!]).toEqual([OTHER]);
    // Every step equals what a load of the same rules computes; older snapshots are untouched.
    for (const snapshot of [added, removed, none]) {
      const fresh = new RuleSnapshot(snapshot.rules);
      expect(sortedMap(snapshot.eventClasses)).toEqual(sortedMap(fresh.eventClasses));
    }
    expect([...before.eventClasses.get(CREATED)!]).toEqual([NOTIFY]);
  });

  it('drops a deleted user scope and renames a user in its own scope only', () => {
    const before = new RuleSnapshot([rule(1, '1'), rule(2, '2'), rule(3, '1')]);
    const compiled = before.rulesOf(scopeKey(1, '2'), NOTIFY);
    const without = before.withoutScope(scopeKey(1, '1'));
    expect(without.rules.map((r) => r.id)).toEqual([2]);
    expect(without.byScope.has(scopeKey(1, '1'))).toBe(false);
    expect(without.rulesOf(scopeKey(1, '2'), NOTIFY)).toBe(compiled); // other scopes keep their compiled rules
    expect(before.withoutScope(scopeKey(1, '9'))).toBe(before);
    const renamed = before.withActorName('1', 'alice2');
    expect(renamed.byScope.get(scopeKey(1, '1'))!.map((r) => r.scopeActorName)).toEqual(['alice2', 'alice2']);
    expect(renamed.byScope.get(scopeKey(1, '2'))!.map((r) => r.scopeActorName)).toEqual(['user2']);
    expect(before.byScope.get(scopeKey(1, '1'))!.map((r) => r.scopeActorName)).toEqual(['user1', 'user1']);
  });
});

function sortedMap(map: Map<string, Set<string>>): [string, string[]][] {
  return [...map]
    .map(([key, set]): [string, string[]] => [key, [...set].sort()])
    .sort(([a], [b]) => a.localeCompare(b));
}

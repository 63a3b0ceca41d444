import {
  matchRules,
  RuleSnapshot,
  scopeKey,
  type StoredRule,
} from '../../../src/modules/workflows/engine/rule-snapshot';
import type { CheckSubject } from '../../../src/modules/workflows/checks/check.types';

/** The rule matcher in memory: event filter, AND of checks, scope order, firstOnly, unknown checks, scope availability. */
const FILE = 'OCA\\WorkflowEngine\\Entity\\File';
const CREATED = 'OCP\\Files\\Events\\Node\\NodeCreatedEvent';
const DELETED = 'OCP\\Files\\Events\\Node\\NodeDeletedEvent';
const NOTIFY = 'OCA\\FlowNotifications\\Flow\\Operation';
const WEBHOOK = 'OCA\\Devplane\\Flow\\WebhookOperation';
const ACCESS = 'OCA\\FilesAccessControl\\Operation';
const C = (name: string, operator: string, value: string) => ({
  class: `OCA\\WorkflowEngine\\Check\\${name}`,
  operator,
  value,
});

let nextId = 1;
function rule(partial: Partial<StoredRule>): StoredRule {
  return {
    id: nextId++,
    class: NOTIFY,
    name: '',
    checks: [C('FileName', 'is', 'a.txt')],
    operation: '',
    entity: FILE,
    events: [CREATED],
    description: '',
    scopeType: 1,
    scopeUserId: '1',
    scopeActorName: 'one',
    ...partial,
  };
}
const subject = (name = 'a.txt', actor: string | null = '2'): CheckSubject => ({
  entity: FILE,
  actorUserId: actor,
  request: null,
  file: { name, mimeType: null, size: 10 },
  now: 0,
});

describe('matchRules', () => {
  const r1 = rule({ scopeUserId: '1' });
  const r2 = rule({
    scopeUserId: '2',
    checks: [C('FileName', 'is', 'a.txt'), C('FileSize', 'less', '1 KB')],
  });
  const r3 = rule({
    scopeUserId: '2',
    checks: [C('FileName', 'is', 'a.txt'), C('FileSize', 'greater', '1 KB')],
  });
  const r4 = rule({ scopeUserId: '1', events: [DELETED] });
  const r5 = rule({ scopeUserId: '1', checks: [{ class: 'OCA\\Gone\\Check', operator: 'is', value: 'x' }] });
  const r6 = rule({ scopeType: 0, scopeUserId: '', scopeActorName: '', class: WEBHOOK });
  const r7 = rule({ scopeType: 0, scopeUserId: '', scopeActorName: '' }); // notifications are user-only: skipped in the admin scope
  const r8 = rule({
    scopeType: 0,
    scopeUserId: '',
    class: ACCESS,
    events: [],
    checks: [C('FileName', 'matches', '/\\.txt$/')],
  });
  const snapshot = new RuleSnapshot([r1, r2, r3, r4, r5, r6, r7, r8]);

  it('matches the event and all checks, in scope order then id order', async () => {
    const matches = await matchRules(snapshot, {
      operationClass: NOTIFY,
      eventName: CREATED,
      scopes: [scopeKey(0, ''), scopeKey(1, '2'), scopeKey(1, '1')],
      subject: subject(),
    });
    expect(matches.map((m) => m.rule.id)).toEqual([r2.id, r1.id, r5.id]);
  });

  it('a stored check whose class is no longer registered passes', async () => {
    const matches = await matchRules(snapshot, {
      operationClass: NOTIFY,
      eventName: CREATED,
      scopes: [scopeKey(1, '1')],
      subject: subject('b.txt'),
    });
    expect(matches.map((m) => m.rule.id)).toEqual([r5.id]);
  });

  it('other events and other scopes do not match; duplicates scopes are visited once', async () => {
    const matches = await matchRules(snapshot, {
      operationClass: NOTIFY,
      eventName: DELETED,
      scopes: [scopeKey(1, '1'), scopeKey(1, '1')],
      subject: subject(),
    });
    expect(matches.map((m) => m.rule.id)).toEqual([r4.id]);
    expect(
      await matchRules(snapshot, {
        operationClass: NOTIFY,
        eventName: CREATED,
        scopes: [scopeKey(1, '3')],
        subject: subject(),
      }),
    ).toEqual([]);
  });

  it('skips rules whose operation is not available for the scope', async () => {
    const matches = await matchRules(snapshot, {
      operationClass: NOTIFY,
      eventName: CREATED,
      scopes: [scopeKey(0, '')],
      subject: subject(),
    });
    expect(matches).toEqual([]);
    const hooks = await matchRules(snapshot, {
      operationClass: WEBHOOK,
      eventName: CREATED,
      scopes: [scopeKey(0, '')],
      subject: subject(),
    });
    expect(hooks.map((m) => m.rule.id)).toEqual([r6.id]);
  });

  it('complex operations: no event name, first match only', async () => {
    const matches = await matchRules(snapshot, {
      operationClass: ACCESS,
      eventName: null,
      scopes: [scopeKey(0, '')],
      subject: subject('x.txt'),
      firstOnly: true,
    });
    expect(matches.map((m) => m.rule.id)).toEqual([r8.id]);
    expect(
      await matchRules(snapshot, {
        operationClass: ACCESS,
        eventName: null,
        scopes: [scopeKey(0, '')],
        subject: subject('x.bin'),
      }),
    ).toEqual([]);
  });

  it('loads groups once, only when a candidate rule needs them', async () => {
    const g = rule({ scopeUserId: '9', checks: [C('UserGroupMembership', 'is', 'acme')] });
    const h = rule({ scopeUserId: '9', checks: [C('UserGroupMembership', '!is', 'acme/ops')] });
    const snap = new RuleSnapshot([g, h]);
    const calls: string[] = [];
    const loadGroups = async (userId: string) => {
      calls.push(userId);
      return new Set(['acme']);
    };
    const matches = await matchRules(snap, {
      operationClass: NOTIFY,
      eventName: CREATED,
      scopes: [scopeKey(1, '9')],
      subject: subject(),
      loadGroups,
    });
    expect(matches.map((m) => m.rule.id)).toEqual([g.id, h.id]);
    expect(calls).toEqual(['2']);
    const none: string[] = [];
    await matchRules(snapshot, {
      operationClass: NOTIFY,
      eventName: CREATED,
      scopes: [scopeKey(1, '1')],
      subject: subject(),
      loadGroups: async (u) => (none.push(u), new Set()),
    });
    expect(none).toEqual([]);
  });

  it('indexes the configured events (fast path)', () => {
    expect([...(snapshot.eventClasses.get(CREATED) ?? [])].sort()).toEqual([WEBHOOK, NOTIFY].sort());
    expect(snapshot.eventClasses.get('OCP\\Files\\Events\\Node\\NodeCopiedEvent')).toBeUndefined();
  });
});

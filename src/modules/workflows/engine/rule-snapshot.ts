import { CHECKS_BY_ID } from '../checks/check-registry';
import type { CheckSubject, CompiledCheck } from '../checks/check.types';
import { OPERATIONS_BY_ID } from '../workflow-registry';
import { SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';

export interface RuleCheck {
  class: string;
  operator: string;
  value: string;
}

/** A stored rule with its scope, as the API and the engine see it. */
export interface StoredRule {
  id: number;
  class: string;
  name: string;
  checks: RuleCheck[];
  operation: string;
  entity: string;
  events: string[];
  description: string;
  scopeType: number;
  /** '' for the admin scope, the owner's numeric user id for a user scope. */
  scopeUserId: string;
  /** '' for the admin scope, the owner's username for a user scope (Nextcloud's scope_actor_id). */
  scopeActorName: string;
}

/** A rule with its checks compiled once (regex, sizes, CIDR, time bounds). */
export interface ParsedRule {
  rule: StoredRule;
  events: ReadonlySet<string>;
  checks: CompiledCheck[];
  needsGroups: boolean;
}

export function scopeKey(type: number, userId: string): string {
  return type === SCOPE_ADMIN ? '0:' : `${type}:${userId}`;
}

/** Adds (delta 1) or removes (delta -1) a rule's events to the per-event class counts (entries reaching 0 go). */
function countEvents(counts: Map<string, Map<string, number>>, rule: StoredRule, delta: number): void {
  for (const event of new Set(rule.events)) {
    let classes = counts.get(event);
    if (!classes) counts.set(event, (classes = new Map()));
    const count = (classes.get(rule.class) ?? 0) + delta;
    if (count > 0) classes.set(rule.class, count);
    else classes.delete(rule.class);
  }
}

function byId(a: StoredRule, b: StoredRule): number {
  return a.id - b.id;
}

function parseRule(rule: StoredRule): ParsedRule {
  let needsGroups = false;
  const checks: CompiledCheck[] = [];
  for (const check of rule.checks) {
    const definition = CHECKS_BY_ID.get(check.class);
    // A stored check whose class is no longer registered passes (Nextcloud).
    if (!definition) continue;
    if (definition.needsGroups) needsGroups = true;
    try {
      checks.push(definition.compile(check.operator, check.value));
    } catch {
      checks.push(() => false);
    }
  }
  return { rule, events: new Set(rule.events), checks, needsGroups };
}

/**
 * Everything the API and the engine read, built from the database and carried from snapshot to snapshot
 * by withChanges: rules by scope, rules by (scope, operation class) with compiled checks (compiled only
 * for the scopes an event or a list asks for), and the configured-events map (event name → operation
 * classes, kept by per-event counts a change adjusts) that lets unrelated events return at once.
 * A snapshot is never modified once readers have it.
 */
export class RuleSnapshot {
  readonly byScope: Map<string, StoredRule[]>;
  private readonly byScopeClass = new Map<string, ParsedRule[]>();
  private events: Map<string, Set<string>> | undefined;
  private counts: Map<string, Map<string, number>> | undefined;
  private allRules: StoredRule[] | undefined;
  /** The highest rule id here: a changed id above it is a new rule (no scope list to search). */
  private readonly maxId: number;
  /** Formatted index per scope (filled by the API on first use). */
  readonly indexCache = new Map<string, unknown>();

  /** From every rule, ids ascending (a full load), or from rules by scope (withChanges: ids ascending in each list). */
  constructor(rules: StoredRule[] | { byScope: Map<string, StoredRule[]>; maxId: number }) {
    if (!Array.isArray(rules)) {
      this.byScope = rules.byScope;
      this.maxId = rules.maxId;
      return;
    }
    this.byScope = new Map();
    let maxId = 0;
    for (const rule of rules) {
      const key = scopeKey(rule.scopeType, rule.scopeUserId);
      let list = this.byScope.get(key);
      if (!list) this.byScope.set(key, (list = []));
      list.push(rule);
      if (rule.id > maxId) maxId = rule.id;
    }
    this.maxId = maxId;
  }

  /**
   * Every rule, ids ascending. Built on first use: a change (withChanges) copies only the scopes it
   * touches, so creating a rule does not cost the number of rules (a rule create used to filter and
   * sort every rule of every user).
   */
  get rules(): StoredRule[] {
    this.allRules ??= [...this.byScope.values()].flat().sort(byId);
    return this.allRules;
  }

  /**
   * Event name → operation class → how many rules of that class listen to it: built once per load (on
   * first use), then carried from snapshot to snapshot by withChanges (a change adjusts the counts of its
   * rules' events only, instead of the next event walking every rule again).
   */
  private get eventCounts(): Map<string, Map<string, number>> {
    if (!this.counts) {
      this.counts = new Map();
      for (const list of this.byScope.values()) for (const rule of list) countEvents(this.counts, rule, 1);
    }
    return this.counts;
  }

  /** Event name → the operation classes of the rules listening to it. */
  get eventClasses(): Map<string, Set<string>> {
    if (!this.events) {
      this.events = new Map();
      for (const [event, classes] of this.eventCounts) this.events.set(event, new Set(classes.keys()));
    }
    return this.events;
  }

  /**
   * A snapshot with the rules of `changedIds` replaced by `replacements` (a rule absent from them was
   * deleted), ids ascending. Only the scopes a changed rule belongs to (before or after) are rebuilt;
   * the others keep their rule lists, compiled rules and formatted indexes, so a change of one user's
   * rule costs the others nothing and costs about the number of scopes, not of rules.
   *
   * `created`: the changes are rules just created, which cannot sit in any scope but their own. Then
   * no scope is searched for their old place, even for an id below the highest known one (concurrent
   * creates applied out of order), a search that costs the number of rules of every scope.
   */
  withChanges(changedIds: ReadonlySet<number>, replacements: StoredRule[], created = false): RuleSnapshot {
    const touched = new Set<string>();
    // Only a change of an existing rule needs its old scope; new ids (creates) skip the search.
    if (!created && [...changedIds].some((id) => id <= this.maxId))
      for (const [key, list] of this.byScope)
        if (list.some((rule) => changedIds.has(rule.id))) touched.add(key);
    let maxId = this.maxId;
    for (const rule of replacements) {
      touched.add(scopeKey(rule.scopeType, rule.scopeUserId));
      if (rule.id > maxId) maxId = rule.id;
    }
    const byScope = new Map(this.byScope);
    for (const key of touched) {
      const list = (this.byScope.get(key) ?? []).filter((rule) => !changedIds.has(rule.id));
      for (const rule of replacements)
        if (scopeKey(rule.scopeType, rule.scopeUserId) === key) list.push(rule);
      list.sort(byId);
      if (list.length > 0) byScope.set(key, list);
      else byScope.delete(key);
    }
    const next = new RuleSnapshot({ byScope, maxId });
    if (this.counts) {
      // The counts and the event map adjusted by the rules that went and came (copies of the touched
      // events' entries only; the others are shared, never modified).
      const counts = new Map(this.counts);
      const copied = new Set<string>();
      const adjust = (rule: StoredRule, delta: number) => {
        for (const event of rule.events) {
          if (!copied.has(event)) {
            copied.add(event);
            counts.set(event, new Map(counts.get(event)));
          }
        }
        countEvents(counts, rule, delta);
      };
      for (const key of touched)
        for (const rule of this.byScope.get(key) ?? []) if (changedIds.has(rule.id)) adjust(rule, -1);
      for (const rule of replacements) adjust(rule, 1);
      for (const event of copied) if (counts.get(event)!.size === 0) counts.delete(event);
      next.counts = counts;
      if (this.events) {
        const events = new Map(this.events);
        for (const event of copied) {
          const classes = counts.get(event);
          if (classes) events.set(event, new Set(classes.keys()));
          else events.delete(event);
        }
        next.events = events;
      }
    }
    for (const [key, index] of this.indexCache) if (!touched.has(key)) next.indexCache.set(key, index);
    for (const [key, parsed] of this.byScopeClass)
      if (!touched.has(key.slice(0, key.indexOf('|')))) next.byScopeClass.set(key, parsed);
    return next;
  }

  /**
   * A snapshot without one scope's rules (a deleted user's: they went with the user), through
   * withChanges: the other scopes keep their lists, compiled rules and indexes.
   */
  withoutScope(key: string): RuleSnapshot {
    const list = this.byScope.get(key);
    if (!list) return this;
    return this.withChanges(new Set(list.map((rule) => rule.id)), []);
  }

  /** A snapshot where a renamed user's rules carry the new name (Nextcloud's scope_actor_id). */
  withActorName(userId: string, name: string): RuleSnapshot {
    const list = this.byScope.get(scopeKey(SCOPE_USER, userId));
    if (!list) return this;
    return this.withChanges(
      new Set(list.map((rule) => rule.id)),
      list.map((rule) => ({ ...rule, scopeActorName: name })),
    );
  }

  /** Rules of one class in one scope, compiled on first use; rules whose operation is not available in the scope are skipped. */
  rulesOf(scope: string, operationClass: string): ParsedRule[] {
    const key = `${scope}|${operationClass}`;
    let parsed = this.byScopeClass.get(key);
    if (!parsed) {
      const operation = OPERATIONS_BY_ID.get(operationClass);
      parsed = (this.byScope.get(scope) ?? [])
        .filter((rule) => rule.class === operationClass && operation?.scopes.includes(rule.scopeType))
        .map(parseRule);
      this.byScopeClass.set(key, parsed);
    }
    return parsed;
  }
}

export interface MatchRequest {
  operationClass: string;
  /** null: every rule of the class (complex operations such as access control). */
  eventName: string | null;
  /** Scopes in order: admin, acting user, owners (de-duplicated by the caller or here). */
  scopes: string[];
  subject: CheckSubject;
  firstOnly?: boolean;
  /** Loads the acting user's groups when a candidate rule has a UserGroupMembership check. */
  loadGroups?: (userId: string) => Promise<Set<string>>;
}

/** Nextcloud's RuleMatcher::getFlows: a rule matches when the event is one of its events and all its checks pass. */
export async function matchRules(snapshot: RuleSnapshot, request: MatchRequest): Promise<ParsedRule[]> {
  const matches: ParsedRule[] = [];
  const seen = new Set<string>();
  for (const scope of request.scopes) {
    if (seen.has(scope)) continue;
    seen.add(scope);
    for (const parsed of snapshot.rulesOf(scope, request.operationClass)) {
      if (request.eventName !== null && !parsed.events.has(request.eventName)) continue;
      if (parsed.needsGroups && request.subject.groups === undefined) {
        request.subject.groups =
          request.subject.actorUserId && request.loadGroups
            ? await request.loadGroups(request.subject.actorUserId)
            : new Set();
      }
      if (checksPass(parsed, request.subject)) {
        matches.push(parsed);
        if (request.firstOnly) return matches;
      }
    }
  }
  return matches;
}

export function checksPass(parsed: ParsedRule, subject: CheckSubject): boolean {
  for (const check of parsed.checks) {
    let ok = false;
    try {
      ok = check(subject);
    } catch {
      ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { GroupCommit } from '../../../platform/database/group-commit';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { EventBus, OnDomainEvent } from '../../../platform/events/event-bus.service';
import { IdentityDirectory } from '../../identity/identity-directory.service';
import { type RuleRecord, WorkflowRulesRepository } from '../workflow-rules.repository';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';
import { SCOPE_USER } from '../workflow.constants';
import { RuleSnapshot, scopeKey, type RuleCheck, type StoredRule } from './rule-snapshot';

export const RULES_CHANGED_TOPIC = 'workflow.rules_changed';

/** Rules read per step of a full load. */
const LOAD_BATCH = 2_000;

/** A rule change as announced to every instance (`ruleId` 0: drop everything, e.g. a deleted user's rules). */
interface RulesChangedMessage {
  ruleId: number;
  action: 'created' | 'updated' | 'deleted';
  /** With `ruleId` 0: only this deleted user's rules went (an instance without this field drops everything). */
  userId?: string;
  /** The announcing store: it applied the change already and skips its own message. */
  origin?: string;
}

/**
 * The in-memory copy of every rule (loaded in three queries, no N+1), shared by the API's index and
 * the rule matcher. A rule change is applied to it in place of a reload: a rule created here is
 * added from what was written; other changes are re-read after their commit (batched while one read
 * is on its way, so they apply in commit order) and swapped into a new snapshot
 * that keeps every other scope's compiled rules and indexes; other instances do the same on the
 * cluster bus's message (PostgreSQL LISTEN/NOTIFY). A renamed or deleted user, a failed re-read or a
 * change while nothing is loaded drops the copy; the next reader loads it whole.
 */
@Injectable()
export class RuleStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RuleStore.name);
  private readonly id = randomUUID();
  private current: RuleSnapshot | undefined;
  private loadedAt = 0;
  private loading: Promise<RuleSnapshot> | undefined;
  private generation = 0;
  private unsubscribe: (() => void) | undefined;
  /** Re-reads of changed rules: the ids submitted while one read runs go together in the next. */
  private readonly rereads = new GroupCommit<number, void>(async (ids) => {
    await this.applyChanges(ids);
    return ids.map(() => undefined);
  });

  constructor(
    private readonly rules: WorkflowRulesRepository,
    private readonly cluster: ClusterBus,
    private readonly events: EventBus,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
    private readonly directory: IdentityDirectory,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.cluster.subscribe(RULES_CHANGED_TOPIC, (payload) => {
      const message = payload as RulesChangedMessage;
      if (message.origin === this.id) return;
      if (message.ruleId === 0 && message.userId) this.dropScopeOf(message.userId);
      else void this.apply(message.ruleId);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  invalidate(): void {
    this.generation++;
    this.current = undefined;
    this.loading = undefined;
  }

  /**
   * Applies a committed change here (resolves once readers see it) and announces it to every
   * other instance. `ruleId` 0 drops the whole copy.
   */
  async changed(ruleId: number, action: 'created' | 'updated' | 'deleted'): Promise<void> {
    await this.apply(ruleId);
    this.announce(ruleId, action);
  }

  /**
   * A rule this instance has just created, applied from what was written (no re-read: its id is new,
   * so no other change of it can be on its way), then announced like any change.
   */
  created(rule: StoredRule): void {
    if (this.current) {
      // A load started before the commit would miss it: never install that one.
      this.generation++;
      this.loading = undefined;
      this.current = this.current.withChanges(new Set([rule.id]), [rule], true);
    } else this.invalidate();
    this.announce(rule.id, 'created');
  }

  /**
   * Not awaited by the writer: other instances learn of the change asynchronously anyway (their
   * listener's delivery), so the answer does not wait for the NOTIFY's turn on the bus connection.
   */
  private announce(ruleId: number, action: 'created' | 'updated' | 'deleted', userId?: string): void {
    this.events.emit('workflow.rules_changed', { ruleId, action });
    this.cluster
      .publish(RULES_CHANGED_TOPIC, {
        ruleId,
        action,
        ...(userId ? { userId } : {}),
        origin: this.id,
      } satisfies RulesChangedMessage)
      .catch((error: unknown) => {
        // The change is committed; other instances catch up on their cache lifetime.
        this.logger.error(
          { err: error, ruleId, action },
          'could not announce a rule change to other instances',
        );
      });
  }

  private async apply(ruleId: number): Promise<void> {
    if (!(ruleId > 0) || !this.current) {
      this.invalidate();
      return;
    }
    await this.rereads.submit(ruleId).catch((error: unknown) => {
      this.logger.warn({ err: error, ruleId }, 'could not re-read a changed rule; the rules are reloaded');
      this.invalidate();
    });
  }

  /** Re-reads the rules `ids` and swaps them into the current snapshot. */
  private async applyChanges(ids: number[]): Promise<void> {
    if (!this.current) {
      // Dropped meanwhile: a load that started before these commits must not be installed.
      this.invalidate();
      return;
    }
    const rows = await this.rules.ruleRecordsByIds(ids);
    const replacements = await this.storedRules(rows, this.current);
    const base = this.current;
    if (!base) {
      this.invalidate();
      return;
    }
    // A load started before the re-read (stale timer) may predate these commits: never install it.
    this.generation++;
    this.loading = undefined;
    this.current = base.withChanges(new Set(ids), replacements);
  }

  /**
   * The current rules. `manager`: load through the caller's transaction when the cache is cold
   * (embedded PGlite deadlocks on a second connection inside an open transaction).
   */
  async snapshot(manager?: EntityManager): Promise<RuleSnapshot> {
    if (this.current) {
      // Safety net for a lost cluster message: refresh in the background after the maximum age.
      if (Date.now() - this.loadedAt > this.config.ruleCacheSeconds * 1000 && !this.loading)
        void this.reload().catch(() => undefined);
      return this.current;
    }
    if (manager) return this.load(manager);
    return this.loading ?? this.reload();
  }

  private reload(): Promise<RuleSnapshot> {
    const generation = this.generation;
    const loading = this.load().then(
      (snapshot) => {
        if (this.generation === generation) {
          this.current = snapshot;
          this.loadedAt = Date.now();
        }
        if (this.loading === loading) this.loading = undefined;
        return snapshot;
      },
      (error: unknown) => {
        if (this.loading === loading) this.loading = undefined;
        throw error;
      },
    );
    this.loading = loading;
    return loading;
  }

  /**
   * A renamed user's rules carry the new name (scope_actor_id): that scope is swapped, the rest is kept
   * (this used to drop the copy and reload every rule).
   */
  @OnDomainEvent('user.renamed')
  onUserRenamed(payload: { userId: string; to: string }): void {
    if (!this.current || !payload?.userId) {
      this.invalidate();
      return;
    }
    this.replace(this.current.withActorName(payload.userId, payload.to));
  }

  /**
   * A deleted user's rules went with the user (already committed): their scope leaves the copy here and
   * on every other instance (this used to drop the copy everywhere and reload every rule).
   */
  userRulesDeleted(userId: string): void {
    this.dropScopeOf(userId);
    this.announce(0, 'deleted', userId);
  }

  private dropScopeOf(userId: string): void {
    if (this.current) this.replace(this.current.withoutScope(scopeKey(SCOPE_USER, userId)));
    else this.invalidate();
  }

  /** Installs a snapshot derived from the current one (a load started before must not be installed). */
  private replace(next: RuleSnapshot): void {
    this.generation++;
    this.loading = undefined;
    this.current = next;
  }

  /**
   * Every rule, in keyset batches of LOAD_BATCH (issue 52.4): each batch is read, named and converted,
   * then the event loop runs what waited (setImmediate) before the next, so a load of 50,000 rules
   * (at start, after the maximum age, after a dropped copy) is many short steps instead of one pause of
   * most of a second. Readers keep the current snapshot while a reload runs in the background.
   */
  private async load(manager?: EntityManager): Promise<RuleSnapshot> {
    const all: StoredRule[] = [];
    let afterId = 0;
    for (;;) {
      const rows = await this.rules.ruleRecordsAfter(afterId, LOAD_BATCH, manager);
      if (rows.length === 0) break;
      for (const rule of await this.storedRules(rows, undefined, manager)) all.push(rule);
      afterId = Number(rows[rows.length - 1]!.id);
      if (rows.length < LOAD_BATCH) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return new RuleSnapshot(all);
  }

  /**
   * Rows with their checks and, for a user's rule, the user's name (taken from `known` when one of
   * that user's rules is already there: a rename drops the whole copy).
   */
  private async storedRules(
    rows: RuleRecord[],
    known: RuleSnapshot | undefined,
    manager?: EntityManager,
  ): Promise<StoredRule[]> {
    const knownNames = new Map<string, string>();
    for (const [first] of known?.byScope.values() ?? [])
      if (first && first.scopeType !== 0) knownNames.set(first.scopeUserId, first.scopeActorName);
    const unknownUsers = rows
      .filter((row) => row.scopeType === 1 && !knownNames.has(row.scopeUserId))
      .map((row) => row.scopeUserId);
    const actors =
      unknownUsers.length > 0 ? await this.directory.namesByIds(unknownUsers, manager) : new Map();
    const ids = [...new Set(rows.flatMap((row) => row.checkIds))];
    const checks = new Map<number, RuleCheck>();
    if (ids.length > 0) {
      const checkRows = await this.rules.checksByIds(ids, manager);
      for (const row of checkRows)
        checks.set(row.id, { class: row.class, operator: row.operator, value: row.value });
    }
    return rows.map((row) => ({
      id: row.id,
      class: row.class,
      name: row.name,
      checks: row.checkIds
        .map((id) => checks.get(id))
        .filter((check): check is RuleCheck => check !== undefined),
      operation: row.operation,
      entity: row.entity,
      events: row.events,
      description: row.description,
      scopeType: row.scopeType,
      scopeUserId: row.scopeUserId,
      scopeActorName:
        row.scopeType === 0
          ? ''
          : (knownNames.get(row.scopeUserId) ?? actors.get(row.scopeUserId)?.name ?? row.scopeUserId),
    }));
  }
}

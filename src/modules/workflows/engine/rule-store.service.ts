import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { EventBus, OnDomainEvent } from '../../../platform/events/event-bus.service';
import { IdentityDirectory } from '../../identity/identity-directory.service';
import { WorkflowRulesRepository } from '../workflow-rules.repository';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';
import { RuleSnapshot, type RuleCheck, type StoredRule } from './rule-snapshot';

export const RULES_CHANGED_TOPIC = 'workflow.rules_changed';

/**
 * The in-memory copy of every rule (two queries, no N+1), shared by the API's index and the rule
 * matcher. Dropped on every change: locally at once, on other instances through the cluster bus
 * (PostgreSQL LISTEN/NOTIFY), and when a user is renamed (scope_actor_id) or deleted.
 */
@Injectable()
export class RuleStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RuleStore.name);
  private current: RuleSnapshot | undefined;
  private loadedAt = 0;
  private loading: Promise<RuleSnapshot> | undefined;
  private generation = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly rules: WorkflowRulesRepository,
    private readonly cluster: ClusterBus,
    private readonly events: EventBus,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
    private readonly directory: IdentityDirectory,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.cluster.subscribe(RULES_CHANGED_TOPIC, () => this.invalidate());
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  invalidate(): void {
    this.generation++;
    this.current = undefined;
    this.loading = undefined;
  }

  /** Drops the cache here and on every other instance. */
  async changed(ruleId: number, action: 'created' | 'updated' | 'deleted'): Promise<void> {
    this.invalidate();
    this.events.emit('workflow.rules_changed', { ruleId, action });
    try {
      await this.cluster.publish(RULES_CHANGED_TOPIC, { ruleId, action });
    } catch (error) {
      // The change is committed; other instances pick it up at their next reload at the latest.
      this.logger.error(
        { err: error, ruleId, action },
        'could not announce a rule change to other instances',
      );
    }
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

  @OnDomainEvent('user.renamed')
  onUserRenamed(): void {
    this.invalidate();
  }

  private async load(manager?: EntityManager): Promise<RuleSnapshot> {
    const rows = await this.rules.ruleRows(manager);
    const userScopes = rows.filter((row) => Number(row.scope_type) === 1).map((row) => row.scope_value);
    const actors = await this.directory.namesByIds(userScopes, manager);
    const ids = [...new Set(rows.flatMap((row) => row.checks))];
    const checks = new Map<number, RuleCheck>();
    if (ids.length > 0) {
      const checkRows = await this.rules.checksByIds(ids, manager);
      for (const row of checkRows)
        checks.set(row.id, { class: row.class, operator: row.operator, value: row.value });
    }
    const rules: StoredRule[] = rows.map((row) => ({
      id: Number(row.id),
      class: row.class,
      name: row.name,
      checks: row.checks
        .map((id) => checks.get(id))
        .filter((check): check is RuleCheck => check !== undefined),
      operation: row.operation,
      entity: row.entity,
      events: row.events,
      description: row.description,
      scopeType: Number(row.scope_type),
      scopeUserId: row.scope_value,
      scopeActorName:
        Number(row.scope_type) === 0 ? '' : (actors.get(row.scope_value)?.name ?? row.scope_value),
    }));
    return new RuleSnapshot(rules);
  }
}

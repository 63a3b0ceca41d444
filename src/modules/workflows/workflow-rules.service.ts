import { Inject, Injectable, Optional } from '@nestjs/common';
import { type AuditEntry, AuditLog } from '../../platform/audit/audit-log';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ForbiddenError } from '../../platform/errors/domain-error';
import { OnDomainEvent } from '../../platform/events/event-bus.service';
import { CHECKS_BY_ID } from './checks/check-registry';
import { CheckInvalidError, type CheckValidationDeps } from './checks/check.types';
import { scopeKey, type RuleCheck, type StoredRule } from './engine/rule-snapshot';
import { RuleStore } from './engine/rule-store.service';
import { ENTITIES_BY_ID, isKnownClass, OPERATIONS_BY_ID } from './workflow-registry';
import { SCOPE_ADMIN, type ScopeType } from './workflow.constants';
import type {
  CreateWorkflowRuleInput,
  UpdateWorkflowRuleInput,
  WorkflowCheckElement,
} from './workflow-rule.input';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from './workflows.config';
import { WorkflowRulesRepository } from './workflow-rules.repository';
import { OrganizationsService } from '../identity/organizations.service';

/** Whose rules: the admin scope (`/global`) or one user's (`/user`). */
export interface RuleScope {
  type: ScopeType;
  /** '' for the admin scope. */
  userId: string;
  /** The user's name (Nextcloud's scope_actor_id), when the caller knows it. */
  userName?: string;
}

/** Create/update response (Nextcloud 34's columns, in its order). */
export interface RuleJson {
  id: number;
  class: string;
  name: string;
  checks: RuleCheck[];
  operation: string;
  entity: string;
  events: string[];
  description: string;
}

/** Index/show rows add the scope. */
export interface ScopedRuleJson extends RuleJson {
  scope_type: number;
  scope_actor_id: string;
}

/** A rule body with its class (the stored one on update) and the description defaulted. */
interface RuleInput extends CreateWorkflowRuleInput {
  description: string;
}

export class RuleScopeError extends ForbiddenError {
  constructor() {
    super('Target operation not within scope', 'permission', { code: 'WORKFLOW_SCOPE' });
  }
}

const MAX_RULE_ID = 2_147_483_647;

function parseRuleId(id: string): number | null {
  if (!/^[0-9]{1,10}$/.test(id)) return null;
  const value = Number(id);
  return value >= 1 && value <= MAX_RULE_ID ? value : null;
}

/** The scope row of a rule: the admin scope has no user. */
function scopeRow(scope: RuleScope): { type: number; value: string } {
  return { type: scope.type, value: scope.type === SCOPE_ADMIN ? '' : scope.userId };
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function toRuleJson(rule: StoredRule): RuleJson {
  return {
    id: rule.id,
    class: rule.class,
    name: rule.name,
    checks: rule.checks.map((c) => ({ class: c.class, operator: c.operator, value: c.value })),
    operation: rule.operation,
    entity: rule.entity,
    events: rule.events,
    description: rule.description,
  };
}

export function toScopedRuleJson(rule: StoredRule): ScopedRuleJson {
  return { ...toRuleJson(rule), scope_type: rule.scopeType, scope_actor_id: rule.scopeActorName };
}

/** A check's content address (Nextcloud's `flow_checks.hash`). */
function checkHash(check: RuleCheck): string {
  return createHash('md5').update(`${check.class}::${check.operator}::${check.value}`, 'utf8').digest('hex');
}

/** The rule as OCS answers it, from what was written (`input.class` is the stored class on update). */
function ruleJson(id: number, input: RuleInput, checks: RuleCheck[]): RuleJson {
  const { class: operationClass, name, operation, entity, events, description } = input;
  return { id, class: operationClass, name, checks, operation, entity, events, description };
}

/** The ten OCS operations (spec 1): listing, showing, creating, updating and deleting rules in a scope. */
@Injectable()
export class WorkflowRulesService {
  constructor(
    private readonly rules: WorkflowRulesRepository,
    private readonly organizations: OrganizationsService,
    private readonly transactions: TransactionRunner,
    private readonly store: RuleStore,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  private available(rule: StoredRule, scope: RuleScope): boolean {
    return OPERATIONS_BY_ID.get(rule.class)?.scopes.includes(scope.type) === true;
  }

  /**
   * Rules of the scope grouped by operation class, ids ascending; `{}` when empty. Built once per
   * scope and rule snapshot and frozen: every caller gets the same object until a rule changes (the
   * OCS envelope renders a frozen result once).
   */
  async index(scope: RuleScope): Promise<Readonly<Record<string, readonly ScopedRuleJson[]>>> {
    const snapshot = await this.store.snapshot();
    const key = scopeKey(scope.type, scope.userId);
    const cached = snapshot.indexCache.get(key) as Record<string, ScopedRuleJson[]> | undefined;
    if (cached) return cached;
    const index: Record<string, ScopedRuleJson[]> = {};
    for (const rule of snapshot.byScope.get(key) ?? []) {
      if (!this.available(rule, scope)) continue;
      (index[rule.class] ??= []).push(toScopedRuleJson(rule));
    }
    for (const rules of Object.values(index)) for (const rule of rules) Object.freeze(rule);
    for (const rules of Object.values(index)) Object.freeze(rules);
    snapshot.indexCache.set(key, Object.freeze(index));
    return index;
  }

  /** Numeric id → that rule or `[]`; anything else → the rules of that operation class (possibly `[]`). */
  async show(scope: RuleScope, id: string): Promise<ScopedRuleJson | ScopedRuleJson[]> {
    const snapshot = await this.store.snapshot();
    const rules = (snapshot.byScope.get(scopeKey(scope.type, scope.userId)) ?? []).filter((rule) =>
      this.available(rule, scope),
    );
    if (/^[0-9]+$/.test(id)) {
      const rule = rules.find((r) => r.id === Number(id));
      return rule ? toScopedRuleJson(rule) : [];
    }
    return rules.filter((rule) => rule.class === id).map(toScopedRuleJson);
  }

  async create(scope: RuleScope, body: CreateWorkflowRuleInput): Promise<RuleJson> {
    // Lone UTF-16 surrogates were already made U+FFFD at the edge (api/well-formed-strings.ts).
    const input: RuleInput = { ...body, description: body.description ?? '' };
    await this.validate(scope, input);
    const checks = this.dedupeChecks(input.checks);
    const rule = ruleJson(await this.insertRule(scope, input, checks), input, checks);
    const actorName = scope.type === SCOPE_ADMIN ? '' : scope.userName;
    if (actorName === undefined) await this.store.changed(rule.id, 'created');
    else
      this.store.created({
        ...rule,
        scopeType: scope.type,
        scopeUserId: scope.userId,
        scopeActorName: actorName,
      });
    return rule;
  }

  /**
   * The rule, its new checks, its scope row and its audit entry in one statement (no explicit
   * transaction: under load every round trip on a held connection waits an event-loop turn, and the
   * pool's queue waits on all of them). Run again when a check inserted concurrently was not visible.
   */
  private async insertRule(scope: RuleScope, input: RuleInput, checks: RuleCheck[]): Promise<number> {
    const hashed = checks.map((check) => ({ ...check, hash: checkHash(check) }));
    const audit = (params: unknown[]) => {
      const sql = this.audit?.insertSql(
        this.auditEntry('create', input, scope),
        { cte: 'operation', resourceIdSql: 'operation.id::text' },
        params,
      );
      return sql ? [`audit AS (${sql})`] : [];
    };
    for (let attempt = 1; ; attempt++) {
      const id = await this.rules.createRule(input, hashed, scopeRow(scope), audit);
      if (id !== null) return id;
      if (attempt === 3) throw new Error('a rule check stayed invisible after three attempts');
    }
  }

  async update(scope: RuleScope, id: string, body: UpdateWorkflowRuleInput): Promise<RuleJson> {
    // Shape (400, the DTO at the edge), then scope (403), then Nextcloud's validation (400). The class is never changed.
    const ruleId = parseRuleId(id);
    const storedClass = ruleId === null ? null : await this.rules.classInScope(ruleId, scopeRow(scope));
    if (ruleId === null || storedClass === null) throw new RuleScopeError();
    const input: RuleInput = { ...body, class: storedClass, description: body.description ?? '' };
    await this.validate(scope, input);
    const checks = this.dedupeChecks(input.checks);
    await this.transactions.run(async (tx) => {
      if ((await this.rules.classInScope(ruleId, scopeRow(scope), true, tx.manager)) === null)
        throw new RuleScopeError();
      const checkIds = await this.upsertChecks(checks, tx.manager);
      await this.rules.updateRule(tx.manager, ruleId, {
        name: input.name,
        checkIds,
        operation: input.operation,
        entity: input.entity,
        events: input.events,
        description: input.description,
      });
      await this.auditRule(tx.manager, 'write', ruleId, input, scope);
    });
    await this.store.changed(ruleId, 'updated');
    return ruleJson(ruleId, input, checks);
  }

  /** Rule changes are administrative writes: one audit entry in the rule's transaction. */
  private async auditRule(
    manager: EntityManager,
    action: 'create' | 'write' | 'delete',
    ruleId: number,
    input: { class: string; name: string; operation?: string; events?: unknown },
    scope: RuleScope,
  ): Promise<void> {
    await this.audit?.record(manager, {
      ...this.auditEntry(action, input, scope),
      resourceId: String(ruleId),
    });
  }

  private auditEntry(
    action: 'create' | 'write' | 'delete',
    input: { class: string; name: string; operation?: string; events?: unknown },
    scope: RuleScope,
  ): Omit<AuditEntry, 'resourceId'> {
    return {
      action,
      resourceType: 'workflow_rule',
      resourceTarget: input.name || input.class,
      additionalFields: { class: input.class, scope: scope.type === SCOPE_ADMIN ? 'global' : 'user' },
      ...(action !== 'delete'
        ? {
            diff: {
              operation: { old: null, new: input.operation },
              events: { old: null, new: input.events },
            },
          }
        : {}),
    };
  }

  async destroy(scope: RuleScope, id: string): Promise<true> {
    const ruleId = parseRuleId(id);
    if (ruleId === null) throw new RuleScopeError();
    await this.transactions.run(async (tx) => {
      if ((await this.rules.classInScope(ruleId, scopeRow(scope), true, tx.manager)) === null)
        throw new RuleScopeError();
      // Check rows are shared between rules and stay (Nextcloud).
      const rule = await this.rules.deleteRule(tx.manager, ruleId);
      await this.auditRule(
        tx.manager,
        'delete',
        ruleId,
        { class: rule?.class ?? '', name: rule?.name ?? '' },
        scope,
      );
    });
    await this.store.changed(ruleId, 'deleted');
    return true;
  }

  /** A deleted user's rules go with the user. */
  @OnDomainEvent('user.deleted')
  async onUserDeleted(payload: { userId: string }): Promise<void> {
    await this.rules.deleteRulesOfUser(payload.userId);
    // Any number of rules went: that user's scope leaves the copy (here and on every instance).
    this.store.userRulesDeleted(payload.userId);
  }

  /** After validate(): every element is a check with an operator. */
  private dedupeChecks(checks: WorkflowCheckElement[]): RuleCheck[] {
    const seen = new Set<string>();
    const result: RuleCheck[] = [];
    for (const check of checks) {
      const item = { class: check!.class, operator: check!.operator!, value: check!.value };
      const key = JSON.stringify([item.class, item.operator, item.value]);
      if (seen.has(key)) continue;
      seen.add(key);
      result.push(item);
    }
    return result;
  }

  /**
   * The ids of the checks, inserting those not stored yet (race-safe through the unique hash), in the
   * rule's transaction: under load a second pool connection for them costs a second wait in the
   * pool's queue, far more than one more round trip on the connection the transaction holds.
   */
  private async upsertChecks(checks: RuleCheck[], manager: EntityManager): Promise<number[]> {
    if (checks.length === 0) return [];
    const hashes = checks.map(checkHash);
    // Existing checks are only read: updating them (an upsert's DO UPDATE) would lock a row every rule
    // with the same check waits on, serializing rule creation under load.
    const ids = new Map((await this.rules.checksByHash(hashes, manager)).map((row) => [row.hash, row.id]));
    const missing = checks.filter((_, index) => !ids.has(hashes[index]!));
    if (missing.length > 0) {
      const missingHashes = hashes.filter((hash) => !ids.has(hash));
      await this.rules.insertChecks(missing, missingHashes, manager);
      for (const row of await this.rules.checksByHash(missingHashes, manager)) ids.set(row.hash, row.id);
    }
    return hashes.map((hash) => ids.get(hash)!);
  }

  private readonly validationDeps: CheckValidationDeps = {
    groupExists: (group: string) => this.organizations.groupExists(group),
  };

  /** Nextcloud's Manager::validateOperation, in its order and with its messages. */
  async validate(scope: RuleScope, input: RuleInput): Promise<void> {
    if (bytes(input.operation) > 4096) throw new CheckInvalidError('The provided operation data is too long');
    if (bytes(input.name) > 256) throw new CheckInvalidError('The provided name is too long');
    const operation = OPERATIONS_BY_ID.get(input.class);
    if (!operation) {
      throw new CheckInvalidError(
        isKnownClass(input.class)
          ? `Operation ${input.class} is invalid`
          : `Operation ${input.class} does not exist`,
      );
    }
    if (!operation.scopes.includes(scope.type))
      throw new CheckInvalidError(`Operation ${input.class} is invalid`);
    const entity = ENTITIES_BY_ID.get(input.entity);
    if (!entity) {
      throw new CheckInvalidError(
        isKnownClass(input.entity)
          ? `Entity ${input.entity} is invalid`
          : `Entity ${input.entity} does not exist`,
      );
    }
    if (input.events.length === 0 && !operation.complex) throw new CheckInvalidError('No events are chosen.');
    for (const event of input.events) {
      if (!entity.events.some((e) => e.eventName === event))
        throw new CheckInvalidError(`Entity ${input.entity} has no event ${event}`);
    }
    if (input.checks.length === 0) throw new CheckInvalidError('At least one check needs to be provided');
    operation.validate(input.operation, input.checks, {
      allowPrivateWebhooks: this.config.webhookAllowPrivate,
    });
    for (const check of input.checks) {
      if (check === null) throw new CheckInvalidError('Invalid check provided');
      if (bytes(check.value) > 2048) throw new CheckInvalidError('The provided check value is too long');
      const definition = CHECKS_BY_ID.get(check.class);
      if (!definition) {
        throw new CheckInvalidError(
          isKnownClass(check.class)
            ? `Check ${check.class} is invalid`
            : `Check ${check.class} does not exist`,
        );
      }
      if (definition.supportedEntities.length > 0 && !definition.supportedEntities.includes(input.entity)) {
        throw new CheckInvalidError(`Check ${check.class} is not allowed with this entity`);
      }
      if (check.operator === null) throw new CheckInvalidError('The given operator is invalid');
      await definition.validate(check.operator, check.value, this.validationDeps);
    }
  }
}

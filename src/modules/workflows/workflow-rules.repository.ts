import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import type { RuleCheck } from './engine/rule-snapshot';
import { FlowCheck } from './entities/flow-check.entity';
import { FlowOperationScope } from './entities/flow-operation-scope.entity';
import { FlowOperation } from './entities/flow-operation.entity';

/** A stored rule with its scope, its checks by id (RuleStore resolves them and the scope's user name). */
export interface RuleRecord {
  id: number;
  class: string;
  name: string;
  checkIds: number[];
  operation: string;
  entity: string;
  events: string[];
  description: string;
  /** 0 admin, 1 user. */
  scopeType: number;
  /** '' for the admin scope, the owner's numeric user id for a user scope. */
  scopeUserId: string;
}

/** A stored check with its id. */
export interface CheckRecord extends RuleCheck {
  id: number;
}

/** The stored columns of a rule (its checks by id). */
export interface RuleColumns {
  class: string;
  name: string;
  checkIds: number[];
  operation: string;
  entity: string;
  events: string[];
  description: string;
}

/** The columns of a rule with its scope, as `ruleRecord` reads them. */
interface RuleRow {
  id: number | string;
  class: string;
  name: string;
  checks: number[];
  operation: string;
  entity: string;
  events: string[];
  description: string;
  scope_type: number | string;
  scope_value: string;
}

const ruleRecord = (row: RuleRow): RuleRecord => ({
  id: Number(row.id),
  class: row.class,
  name: row.name,
  checkIds: row.checks.map(Number),
  operation: row.operation,
  entity: row.entity,
  events: row.events,
  description: row.description,
  scopeType: Number(row.scope_type),
  scopeUserId: row.scope_value,
});

/**
 * The workflow tables: flow_operations (rules, `FlowOperation`), flow_operations_scope (whose rule,
 * `FlowOperationScope`) and flow_checks (content-addressed checks shared between rules, `FlowCheck`). A user
 * scope's value is the user's numeric id; the user's name comes from identity's directory. Methods return
 * camelCase records (`RuleRecord`, `CheckRecord`): rows never leave this file.
 */
@Injectable()
export class WorkflowRulesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A rule with its scope (callers add the filter); ids ascending. */
  private rules(manager: EntityManager) {
    return manager
      .getRepository(FlowOperation)
      .createQueryBuilder('o')
      .innerJoin(FlowOperationScope, 's', 's.operation_id = o.id')
      .select(['o.id AS id', 'o.class AS class', 'o.name AS name', 'o.checks AS checks'])
      .addSelect(['o.operation AS operation', 'o.entity AS entity', 'o.events AS events'])
      .addSelect(['o.description AS description', 's.type AS scope_type', 's.value AS scope_value'])
      .orderBy('o.id');
  }

  /** Every rule with its scope, ids ascending. */
  async ruleRecords(manager: EntityManager = this.dataSource.manager): Promise<RuleRecord[]> {
    return (await this.rules(manager).getRawMany<RuleRow>()).map(ruleRecord);
  }

  /**
   * One batch of rules with their scopes, ids ascending from after `afterId` (a keyset page: each batch
   * walks the primary key from where the last stopped, so loading every rule in batches costs one pass).
   */
  async ruleRecordsAfter(
    afterId: number,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RuleRecord[]> {
    const rows = await this.rules(manager)
      .where('o.id > :afterId', { afterId })
      .limit(limit)
      .getRawMany<RuleRow>();
    return rows.map(ruleRecord);
  }

  /** The rules among `ids` that exist, with their scopes, ids ascending (a deleted rule is absent). */
  async ruleRecordsByIds(ids: number[]): Promise<RuleRecord[]> {
    const rows = await this.rules(this.dataSource.manager)
      .where('o.id IN (:...ids)', { ids })
      .getRawMany<RuleRow>();
    return rows.map(ruleRecord);
  }

  async checksByIds(ids: number[], manager: EntityManager = this.dataSource.manager): Promise<CheckRecord[]> {
    const rows = await manager.getRepository(FlowCheck).find({
      select: { id: true, class: true, operator: true, value: true },
      where: { id: In(ids) },
    });
    return rows.map(({ id, class: cls, operator, value }) => ({ id, class: cls, operator, value }));
  }

  /**
   * Creates a rule in ONE statement: its checks (those not stored yet), the rule, its scope row and,
   * when given, the statement's other data-modifying CTEs (`extra(params)` returns `name AS (…)`
   * bodies over the CTE `operation`, e.g. the audit entry). One statement is atomic without an
   * explicit transaction and costs one round trip on one pooled connection.
   * Returns null when a check another transaction inserted concurrently was not visible to this
   * statement's snapshot (nothing is written then; the caller runs it again).
   */
  async createRule(
    rule: Omit<RuleColumns, 'checkIds'>,
    checks: (RuleCheck & { hash: string })[],
    scope: { type: number; value: string },
    extra: (params: unknown[]) => string[] = () => [],
  ): Promise<number | null> {
    const params: unknown[] = [
      checks.map((c) => c.class),
      checks.map((c) => c.operator),
      checks.map((c) => c.value),
      checks.map((c) => c.hash),
      rule.class,
      rule.name,
      rule.operation,
      rule.entity,
      JSON.stringify(rule.events),
      rule.description,
      scope.type,
      scope.value,
    ];
    const more = extra(params);
    const inserted: { id: number }[] = await this.dataSource.query(
      `WITH wanted AS (
         SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::text[], $4::char(32)[])
                       WITH ORDINALITY AS w(class, operator, value, hash, position)),
       added AS (
         INSERT INTO flow_checks (class, operator, value, hash)
         SELECT class, operator, value, hash FROM wanted w
          WHERE NOT EXISTS (SELECT 1 FROM flow_checks c WHERE c.hash = w.hash)
         ON CONFLICT (hash) DO NOTHING RETURNING id, hash),
       check_ids AS (
         SELECT w.position, COALESCE(a.id, c.id) AS id FROM wanted w
           LEFT JOIN added a ON a.hash = w.hash
           LEFT JOIN flow_checks c ON c.hash = w.hash),
       operation AS (
         INSERT INTO flow_operations (class, name, checks, operation, entity, events, description)
         SELECT $5, $6, COALESCE((SELECT jsonb_agg(id ORDER BY position) FROM check_ids), '[]'::jsonb),
                $7, $8, $9::jsonb, $10
          WHERE NOT EXISTS (SELECT 1 FROM check_ids WHERE id IS NULL)
         RETURNING id),
       scope AS (
         INSERT INTO flow_operations_scope (operation_id, type, value) SELECT id, $11, $12 FROM operation)${more.map((cte) => `,\n       ${cte}`).join('')}
       SELECT id FROM operation`,
      params,
    );
    return inserted.length > 0 ? Number(inserted[0]!.id) : null;
  }

  /** Rewrites a rule (never its class). */
  async updateRule(manager: EntityManager, ruleId: number, rule: Omit<RuleColumns, 'class'>): Promise<void> {
    // `updated_at` is the entity's UpdateDateColumn: TypeORM sets it in the same UPDATE.
    await manager.getRepository(FlowOperation).update(ruleId, {
      name: rule.name,
      checks: rule.checkIds,
      operation: rule.operation,
      entity: rule.entity,
      events: rule.events,
      description: rule.description,
    });
  }

  /** Deletes a rule (its check rows stay); returns its class and name when it existed. */
  async deleteRule(
    manager: EntityManager,
    ruleId: number,
  ): Promise<{ class: string; name: string } | undefined> {
    const [rule] = (await manager.query('DELETE FROM flow_operations WHERE id = $1 RETURNING class, name', [
      ruleId,
    ])) as { class: string; name: string }[];
    return rule;
  }

  /** Deletes a user's rules; returns their ids. */
  async deleteRulesOfUser(userId: string): Promise<number[]> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(FlowOperation)
      .where('id IN (SELECT operation_id FROM flow_operations_scope WHERE type = 1 AND value = :userId)', {
        userId,
      })
      .returning('id')
      .execute();
    return (result.raw as { id: number | string }[]).map((row) => Number(row.id));
  }

  /** The class of the rule when it belongs to the scope (`lock`: locks the rule row). */
  async classInScope(
    ruleId: number,
    scope: { type: number; value: string },
    lock = false,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string | null> {
    const rows: { class: string }[] = await manager.query(
      `SELECT o.class FROM flow_operations o JOIN flow_operations_scope s ON s.operation_id = o.id
        WHERE o.id = $1 AND s.type = $2 AND s.value = $3${lock ? ' FOR UPDATE OF o' : ''}`,
      [ruleId, scope.type, scope.value],
    );
    return rows[0]?.class ?? null;
  }

  /** Check rows by hash (read only: referencing a committed, never-deleted check needs no lock). */
  async checksByHash(
    hashes: string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ id: number; hash: string }[]> {
    const rows = await manager
      .getRepository(FlowCheck)
      .find({ select: { id: true, hash: true }, where: { hash: In(hashes) } });
    return rows.map((row) => ({ id: Number(row.id), hash: row.hash.trim() }));
  }

  /** Inserts the checks, skipping hashes a concurrent transaction inserted first. */
  async insertChecks(
    checks: RuleCheck[],
    hashes: string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO flow_checks (class, operator, value, hash)
       SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::text[], $4::char(32)[])
       ON CONFLICT (hash) DO NOTHING`,
      [checks.map((c) => c.class), checks.map((c) => c.operator), checks.map((c) => c.value), hashes],
    );
  }
}

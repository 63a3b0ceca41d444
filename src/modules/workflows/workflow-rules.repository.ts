import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { RuleCheck } from './engine/rule-snapshot';

/** A rule row with its scope and, for a user's rule, the user's name (RuleStore's snapshot). */
export interface RuleRow {
  id: number;
  class: string;
  name: string;
  checks: number[];
  operation: string;
  entity: string;
  events: string[];
  description: string;
  scope_type: number;
  scope_value: string;
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

/** A rule row with its scope (RuleRow); callers add the filter and the order. */
const RULE_ROWS = `SELECT o.id, o.class, o.name, o.checks, o.operation, o.entity, o.events, o.description,
                          s.type AS scope_type, s.value AS scope_value
                     FROM flow_operations o
                     JOIN flow_operations_scope s ON s.operation_id = o.id`;

/**
 * The workflow tables: flow_operations (rules), flow_operations_scope (whose rule) and flow_checks
 * (content-addressed checks shared between rules). A user scope's value is the user's numeric id; the
 * user's name comes from identity's directory.
 */
@Injectable()
export class WorkflowRulesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every rule with its scope, ids ascending. */
  ruleRows(manager: EntityManager = this.dataSource.manager): Promise<RuleRow[]> {
    return manager.query(`${RULE_ROWS} ORDER BY o.id`);
  }

  /**
   * One batch of rules with their scopes, ids ascending from after `afterId` (a keyset page: each batch
   * walks the primary key from where the last stopped, so loading every rule in batches costs one pass).
   */
  ruleRowsAfter(
    afterId: number,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RuleRow[]> {
    return manager.query(`${RULE_ROWS} WHERE o.id > $1 ORDER BY o.id LIMIT $2`, [afterId, limit]);
  }

  /** The rules among `ids` that exist, with their scopes, ids ascending (a deleted rule is absent). */
  ruleRowsByIds(ids: number[]): Promise<RuleRow[]> {
    return this.dataSource.query(`${RULE_ROWS} WHERE o.id = ANY($1::bigint[]) ORDER BY o.id`, [ids]);
  }

  checksByIds(
    ids: number[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<(RuleCheck & { id: number })[]> {
    return manager.query('SELECT id, class, operator, value FROM flow_checks WHERE id = ANY($1::int[])', [
      ids,
    ]);
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
    await manager.query(
      `UPDATE flow_operations SET name = $2, checks = $3::jsonb, operation = $4, entity = $5, events = $6::jsonb,
              description = $7, updated_at = now() WHERE id = $1`,
      [
        ruleId,
        rule.name,
        JSON.stringify(rule.checkIds),
        rule.operation,
        rule.entity,
        JSON.stringify(rule.events),
        rule.description,
      ],
    );
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
  deleteRulesOfUser(userId: string): Promise<{ id: number }[]> {
    return this.dataSource.query(
      `DELETE FROM flow_operations WHERE id IN (SELECT operation_id FROM flow_operations_scope WHERE type = 1 AND value = $1) RETURNING id`,
      [userId],
    );
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
    return (await manager.query(`SELECT id, hash FROM flow_checks WHERE hash = ANY($1::char(32)[])`, [
      hashes,
    ])) as { id: number; hash: string }[];
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

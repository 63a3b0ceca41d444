import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export interface InterceptionFilters {
  initiatorId?: string;
  provider?: string;
  providerName?: string;
  model?: string;
  /** Several clients; `unknown` matches interceptions without one. */
  clients: string[];
  sessionId?: string;
  startedAfter?: Date;
  startedBefore?: Date;
  /** Members read nothing (Coder: even `initiator:me` counts 0). */
  none?: boolean;
}

export interface Page {
  limit: number;
  offset: number;
}

export type Row = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The read side of the interception records (reference D.2): sessions (interceptions grouped by
 * session id with their token usage, last prompt and activity), one session's interceptions,
 * interception pages, distinct models and clients. Rows come back as the columns the presenters read;
 * they carry `initiator_id` only (the initiator's names come from identity's directory).
 */
@Injectable()
export class AiInterceptionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private where(filters: InterceptionFilters, params: unknown[]): string {
    const add = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const clauses = ['i.ended_at IS NOT NULL'];
    if (filters.none) clauses.push('false');
    if (filters.initiatorId) clauses.push(`i.initiator_id = ${add(filters.initiatorId)}`);
    if (filters.provider) clauses.push(`i.provider = ${add(filters.provider)}`);
    if (filters.providerName) clauses.push(`i.provider_name = ${add(filters.providerName)}`);
    if (filters.model) clauses.push(`i.model = ${add(filters.model)}`);
    if (filters.sessionId) clauses.push(`i.session_id = ${add(filters.sessionId)}`);
    if (filters.startedAfter) clauses.push(`i.started_at >= ${add(filters.startedAfter)}`);
    if (filters.startedBefore) clauses.push(`i.started_at <= ${add(filters.startedBefore)}`);
    if (filters.clients.length) {
      const named = filters.clients.filter((client) => client !== 'unknown');
      const parts = [] as string[];
      if (named.length) parts.push(`lower(i.client) = ANY(${add(named)})`);
      if (filters.clients.includes('unknown')) parts.push('i.client IS NULL');
      clauses.push(`(${parts.join(' OR ')})`);
    }
    return clauses.join(' AND ');
  }

  private sessionsSql(where: string): string {
    return `WITH i AS (SELECT * FROM ai_gateway_interceptions i WHERE ${where}),
      u AS (SELECT t.interception_id, sum(t.input_tokens) AS input_tokens, sum(t.output_tokens) AS output_tokens,
                   sum(t.cache_read_input_tokens) AS cache_read_input_tokens,
                   sum(t.cache_write_input_tokens) AS cache_write_input_tokens
              FROM ai_gateway_token_usages t JOIN i ON i.id = t.interception_id GROUP BY t.interception_id),
      p AS (SELECT DISTINCT ON (p.interception_id) p.interception_id, p.prompt, p.created_at
              FROM ai_gateway_user_prompts p JOIN i ON i.id = p.interception_id
             ORDER BY p.interception_id, p.created_at DESC),
      s AS (
        SELECT i.session_id, i.initiator_id,
               array_agg(DISTINCT i.provider) AS providers, array_agg(DISTINCT i.model) AS models,
               (array_agg(i.client ORDER BY i.started_at))[1] AS client,
               (array_agg(i.metadata ORDER BY i.started_at))[1] AS metadata,
               min(i.started_at) AS started_at, max(i.ended_at) AS ended_at,
               count(*) FILTER (WHERE i.thread_root_id IS NULL) AS threads,
               coalesce(sum(u.input_tokens), 0) AS input_tokens, coalesce(sum(u.output_tokens), 0) AS output_tokens,
               coalesce(sum(u.cache_read_input_tokens), 0) AS cache_read_input_tokens,
               coalesce(sum(u.cache_write_input_tokens), 0) AS cache_write_input_tokens,
               (array_agg(p.prompt ORDER BY p.created_at DESC) FILTER (WHERE p.prompt IS NOT NULL))[1] AS last_prompt,
               coalesce(max(p.created_at), min(i.started_at)) AS last_active_at
          FROM i LEFT JOIN u ON u.interception_id = i.id LEFT JOIN p ON p.interception_id = i.id
         GROUP BY i.session_id, i.initiator_id)`;
  }

  /**
   * A page of sessions, most recently active first (after the session `afterSessionId` when given),
   * and how many match; null when the cursor session is not among them.
   */
  async sessions(
    filters: InterceptionFilters,
    page: Page,
    afterSessionId?: string,
  ): Promise<{ count: unknown; rows: Row[] } | null> {
    const params: unknown[] = [];
    const base = this.sessionsSql(this.where(filters, params));
    let cursor = '';
    if (afterSessionId) {
      const found = (await this.dataSource.query(
        `${base} SELECT last_active_at, session_id FROM s WHERE session_id = $${params.length + 1} LIMIT 1`,
        [...params, afterSessionId],
      )) as Row[];
      if (!found[0]) return null;
      params.push(found[0].last_active_at, afterSessionId);
      cursor = `WHERE (s.last_active_at, s.session_id) < ($${params.length - 1}, $${params.length})`;
    }
    const countParams = params.slice(0, afterSessionId ? params.length - 2 : params.length);
    const [counted] = (await this.dataSource.query(
      `${base} SELECT count(*)::int AS n FROM s`,
      countParams,
    )) as Row[];
    params.push(page.limit, page.offset);
    const rows = (await this.dataSource.query(
      `${base} SELECT s.* FROM s ${cursor}
                ORDER BY s.last_active_at DESC, s.session_id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )) as Row[];
    return { count: counted?.n, rows };
  }

  /** One session's summary row (as `sessions` gives it), or undefined. */
  async session(sessionId: string): Promise<Row | undefined> {
    const summary = (await this.dataSource.query(
      `${this.sessionsSql('i.ended_at IS NOT NULL AND i.session_id = $1')}
       SELECT s.* FROM s ORDER BY s.last_active_at DESC LIMIT 1`,
      [sessionId],
    )) as Row[];
    return summary[0];
  }

  /** A session's finished interceptions in order, with their thread root, usages, tool calls and last prompt. */
  async sessionInterceptions(sessionId: string): Promise<Row[]> {
    return (await this.dataSource.query(
      `SELECT i.*, coalesce(i.thread_root_id, i.id) AS root,
              coalesce((SELECT json_agg(t ORDER BY t.created_at) FROM ai_gateway_token_usages t WHERE t.interception_id = i.id), '[]') AS usages,
              coalesce((SELECT json_agg(t ORDER BY t.created_at) FROM ai_gateway_tool_usages t WHERE t.interception_id = i.id), '[]') AS tools,
              (SELECT p.prompt FROM ai_gateway_user_prompts p WHERE p.interception_id = i.id ORDER BY p.created_at DESC LIMIT 1) AS prompt
         FROM ai_gateway_interceptions i WHERE i.session_id = $1 AND i.ended_at IS NOT NULL
        ORDER BY i.started_at, i.id`,
      [sessionId],
    )) as Row[];
  }

  /**
   * A page of finished interceptions, newest first (older than the interception `afterId` when
   * given), with their initiator, usages, prompts and tool calls, and how many match (the cursor
   * aside); null when the cursor interception does not exist.
   */
  async interceptions(
    filters: InterceptionFilters,
    page: Page,
    afterId?: string,
  ): Promise<{ count: unknown; rows: Row[] } | null> {
    const params: unknown[] = [];
    let where = this.where(filters, params);
    const countParams = [...params];
    const [counted] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM ai_gateway_interceptions i WHERE ${where}`,
      countParams,
    )) as Row[];
    if (afterId) {
      const found = UUID.test(afterId)
        ? ((await this.dataSource.query('SELECT started_at FROM ai_gateway_interceptions WHERE id = $1', [
            afterId,
          ])) as Row[])
        : [];
      if (!found[0]) return null;
      params.push(found[0].started_at, afterId);
      where += ` AND (i.started_at, i.id) < ($${params.length - 1}, $${params.length})`;
    }
    params.push(page.limit, page.offset);
    const rows = (await this.dataSource.query(
      `SELECT i.*,
              coalesce((SELECT json_agg(t ORDER BY t.created_at) FROM ai_gateway_token_usages t WHERE t.interception_id = i.id), '[]') AS usages,
              coalesce((SELECT json_agg(t ORDER BY t.created_at) FROM ai_gateway_user_prompts t WHERE t.interception_id = i.id), '[]') AS prompts,
              coalesce((SELECT json_agg(t ORDER BY t.created_at) FROM ai_gateway_tool_usages t WHERE t.interception_id = i.id), '[]') AS tools
         FROM ai_gateway_interceptions i
        WHERE ${where} ORDER BY i.started_at DESC, i.id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    )) as Row[];
    return { count: counted?.n, rows };
  }

  /** Distinct models or clients of finished interceptions (`Unknown` for none), sorted. */
  async distinct(column: 'model' | 'client', limit: number): Promise<string[]> {
    const rows = (await this.dataSource.query(
      `SELECT DISTINCT coalesce(${column}, 'Unknown') AS v FROM ai_gateway_interceptions WHERE ended_at IS NOT NULL ORDER BY v LIMIT $1`,
      [limit],
    )) as { v: string }[];
    return rows.map((row) => row.v);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AiInterception } from '../entities/ai-interception.entity';
import { AiSeat } from '../entities/ai-records.entity';

/** One finished interception as the batch statement reads it (jsonb_to_recordset). */
export interface InterceptionRecord {
  id: string;
  initiator_id: string;
  api_key_id: string | null;
  provider: string;
  provider_name: string;
  model: string;
  client: string | null;
  client_session_id: string | null;
  thread_root_id: string | null;
  session_id: string;
  credential_kind: string;
  credential_hint: string;
  metadata: Record<string, unknown>;
  started_at: string;
  ended_at: string;
  status_code: number;
  error_type: string | null;
  error_message: string | null;
  usages: Record<string, unknown>[];
  tools: Record<string, unknown>[];
  prompt_response_id: string;
  prompt: string | null;
}

/**
 * The write side of the interception records: the thread an interception continues, the batch
 * statement that writes finished interceptions with their usages, tool calls, prompts and the
 * initiators' AI seats, and who holds a seat.
 */
@Injectable()
export class InterceptionRecordsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** An interception not written yet. */
  build(fields: Partial<AiInterception>): AiInterception {
    return this.dataSource.getRepository(AiInterception).create(fields);
  }

  /** The earliest recorded interception of the initiator that made one of these tool calls, or undefined. */
  async toolCaller(
    toolCallIds: string[],
    initiatorId: string,
  ): Promise<{ id: string; thread_root_id: string | null } | undefined> {
    const rows = (await this.dataSource.query(
      `SELECT i.id, i.thread_root_id FROM ai_gateway_tool_usages t
         JOIN ai_gateway_interceptions i ON i.id = t.interception_id
        WHERE t.tool_call_id = ANY($1) AND i.initiator_id = $2
        ORDER BY t.created_at LIMIT 1`,
      [toolCallIds, initiatorId],
    )) as { id: string; thread_root_id: string | null }[];
    return rows[0];
  }

  /**
   * Writes the records (interceptions, token usages, tool calls, prompts) and the initiators' AI
   * seats in one statement; returns the users whose seat this created.
   */
  async insertBatch(
    records: InterceptionRecord[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    const rows = (await manager.query(
      `WITH x AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, initiator_id bigint, api_key_id text,
                provider text, provider_name text, model text, client text, client_session_id text,
                thread_root_id uuid, session_id text, credential_kind text, credential_hint text, metadata jsonb,
                started_at timestamptz, ended_at timestamptz, status_code integer, error_type text,
                error_message text, usages jsonb, tools jsonb, prompt_response_id text, prompt text)),
       i AS (
         INSERT INTO ai_gateway_interceptions (id, initiator_id, api_key_id, provider, provider_name, model, client,
                client_session_id, thread_root_id, session_id, credential_kind, credential_hint, metadata,
                started_at, ended_at, status_code, error_type, error_message)
         SELECT id, initiator_id, api_key_id, provider, provider_name, model, client, client_session_id,
                thread_root_id, session_id, credential_kind, credential_hint, metadata, started_at, ended_at,
                status_code, error_type, error_message
           FROM x RETURNING id),
       u AS (
         INSERT INTO ai_gateway_token_usages (interception_id, provider_response_id, input_tokens, output_tokens,
                cache_read_input_tokens, cache_write_input_tokens, metadata, created_at)
         SELECT x.id, u.provider_response_id, u.input_tokens, u.output_tokens, u.cache_read_input_tokens,
                u.cache_write_input_tokens, coalesce(u.metadata, '{}'), x.ended_at
           FROM x, jsonb_to_recordset(x.usages) AS u(provider_response_id text, input_tokens bigint,
                output_tokens bigint, cache_read_input_tokens bigint, cache_write_input_tokens bigint, metadata jsonb)),
       t AS (
         INSERT INTO ai_gateway_tool_usages (interception_id, provider_response_id, tool_call_id, tool, input, created_at)
         SELECT x.id, t.provider_response_id, t.tool_call_id, t.tool, t.input, x.ended_at
           FROM x, jsonb_to_recordset(x.tools) AS t(provider_response_id text, tool_call_id text, tool text, input text)),
       p AS (
         INSERT INTO ai_gateway_user_prompts (interception_id, provider_response_id, prompt, created_at)
         SELECT x.id, x.prompt_response_id, x.prompt, x.ended_at FROM x WHERE x.prompt IS NOT NULL),
       s AS (
         INSERT INTO ai_seats (user_id, first_used_at, reason)
         SELECT DISTINCT ON (initiator_id) initiator_id, started_at, 'aigateway' FROM x ORDER BY initiator_id, started_at
         ON CONFLICT (user_id) DO NOTHING RETURNING user_id)
       SELECT user_id::text AS user_id FROM s`,
      [JSON.stringify(records)],
    )) as { user_id: string }[];
    return rows.map((row) => row.user_id);
  }

  /** Which of these users hold an AI seat. */
  seatHolders(userIds: readonly string[]): Promise<{ user_id: string }[]> {
    return this.dataSource
      .getRepository(AiSeat)
      .query('SELECT user_id::text FROM ai_seats WHERE user_id = ANY($1)', [userIds]);
  }
}

import { Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AuditLog } from '../../platform/audit/audit-log';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { AiInterception } from './entities/ai-interception.entity';
import { AiSeat } from './entities/ai-records.entity';
import type { ResponseFacts } from './wire/provider-wire';

export interface InterceptionStart {
  initiatorId: string;
  apiKeyId: string | null;
  provider: string;
  providerName: string;
  model: string;
  client: string | null;
  clientSessionId: string | null;
  credentialKind: 'centralized' | 'byok';
  credentialHint: string;
  toolResultIds: string[];
  metadata: Record<string, unknown>;
}

export interface InterceptionEnd {
  statusCode: number;
  prompt: string | null;
  responses: ResponseFacts[];
  error: { type: string; message: string } | null;
}

/**
 * Writes interceptions: the row when the request arrives (thread root by tool-call correlation,
 * session id fixed then), and at the end, in one transaction, its token usages, prompt, tool calls,
 * end time and outcome, plus the initiator's AI seat (audited the first time).
 */
@Injectable()
export class InterceptionsRecorder {
  private readonly logger = new Logger(InterceptionsRecorder.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  /**
   * Tool calls of responses this instance just sent, by call id → thread root: an agent sends the
   * tool's result the moment the response ends, before the records of that response are written.
   */
  private readonly recentToolCalls = new Map<string, { initiatorId: string; rootId: string }>();

  /** Called just before a response ends, with the tool calls it carried. */
  remember(interception: AiInterception, toolCallIds: string[]): void {
    for (const id of toolCallIds) {
      if (!id) continue;
      this.recentToolCalls.set(id, {
        initiatorId: interception.initiatorId,
        rootId: interception.threadRootId ?? interception.id,
      });
      if (this.recentToolCalls.size > 10_000) {
        const oldest = this.recentToolCalls.keys().next().value;
        if (oldest !== undefined) this.recentToolCalls.delete(oldest);
      }
    }
  }

  /**
   * The interception as the request arrives: its id, and its thread root by tool-call correlation
   * (this instance's recent responses first; the records otherwise). Nothing is written yet.
   */
  async prepare(input: InterceptionStart): Promise<AiInterception> {
    let threadRootId: string | null = null;
    for (const id of input.toolResultIds) {
      const recent = this.recentToolCalls.get(id);
      if (recent && recent.initiatorId === input.initiatorId) {
        threadRootId = recent.rootId;
        break;
      }
    }
    if (threadRootId === null && input.toolResultIds.length > 0) {
      const rows = (await this.dataSource.query(
        `SELECT i.id, i.thread_root_id FROM ai_gateway_tool_usages t
           JOIN ai_gateway_interceptions i ON i.id = t.interception_id
          WHERE t.tool_call_id = ANY($1) AND i.initiator_id = $2
          ORDER BY t.created_at LIMIT 1`,
        [input.toolResultIds, input.initiatorId],
      )) as { id: string; thread_root_id: string | null }[];
      if (rows[0]) threadRootId = rows[0].thread_root_id ?? rows[0].id;
    }
    const id = randomUUID();
    return this.dataSource.getRepository(AiInterception).create({
      id,
      initiatorId: input.initiatorId,
      apiKeyId: input.apiKeyId,
      provider: input.provider,
      providerName: input.providerName,
      model: input.model.slice(0, 255),
      client: input.client,
      clientSessionId: input.clientSessionId,
      threadRootId,
      sessionId: input.clientSessionId ?? threadRootId ?? id,
      credentialKind: input.credentialKind,
      credentialHint: input.credentialHint,
      metadata: input.metadata,
      startedAt: new Date(),
      endedAt: null,
    });
  }

  /**
   * Writes the finished interception with its usages, prompt and tool calls in one statement (one
   * round trip: the proxy's cost per request), and the initiator's AI seat; the first seat of a
   * user is audited in the same transaction.
   */
  async finish(interception: AiInterception, end: InterceptionEnd): Promise<void> {
    const endedAt = new Date();
    const model = interception.model || end.responses.find((response) => response.model)?.model || '';
    const usages = end.responses
      .filter((response) => response.usage)
      .map((response) => ({
        provider_response_id: response.responseId,
        input_tokens: response.usage!.input,
        output_tokens: response.usage!.output,
        cache_read_input_tokens: response.usage!.cacheRead,
        cache_write_input_tokens: response.usage!.cacheWrite,
      }));
    const tools = end.responses.flatMap((response) =>
      response.toolCalls.map((call) => ({
        provider_response_id: response.responseId,
        tool_call_id: call.id,
        tool: call.name.slice(0, 255),
        input: call.input,
      })),
    );
    const write = async (manager: import('typeorm').EntityManager): Promise<boolean> => {
      const rows = (await manager.query(
        `WITH i AS (
           INSERT INTO ai_gateway_interceptions (id, initiator_id, api_key_id, provider, provider_name, model, client,
                  client_session_id, thread_root_id, session_id, credential_kind, credential_hint, metadata,
                  started_at, ended_at, status_code, error_type, error_message)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id),
         u AS (
           INSERT INTO ai_gateway_token_usages (interception_id, provider_response_id, input_tokens, output_tokens,
                  cache_read_input_tokens, cache_write_input_tokens)
           SELECT i.id, x.provider_response_id, x.input_tokens, x.output_tokens, x.cache_read_input_tokens,
                  x.cache_write_input_tokens
             FROM i, jsonb_to_recordset($19::jsonb) AS x(provider_response_id text, input_tokens bigint,
                  output_tokens bigint, cache_read_input_tokens bigint, cache_write_input_tokens bigint)),
         t AS (
           INSERT INTO ai_gateway_tool_usages (interception_id, provider_response_id, tool_call_id, tool, input)
           SELECT i.id, x.provider_response_id, x.tool_call_id, x.tool, x.input
             FROM i, jsonb_to_recordset($20::jsonb) AS x(provider_response_id text, tool_call_id text, tool text, input text)),
         p AS (
           INSERT INTO ai_gateway_user_prompts (interception_id, provider_response_id, prompt)
           SELECT i.id, $21::text, $22::text FROM i WHERE $22::text IS NOT NULL),
         s AS (
           INSERT INTO ai_seats (user_id, first_used_at, reason) SELECT $2::bigint, $14::timestamptz, 'aigateway' FROM i
           ON CONFLICT (user_id) DO NOTHING RETURNING user_id)
         SELECT (SELECT count(*) FROM s)::int AS seat`,
        [
          interception.id,
          interception.initiatorId,
          interception.apiKeyId,
          interception.provider,
          interception.providerName,
          model,
          interception.client,
          interception.clientSessionId,
          interception.threadRootId,
          interception.sessionId,
          interception.credentialKind,
          interception.credentialHint,
          JSON.stringify(interception.metadata),
          interception.startedAt,
          endedAt,
          end.statusCode,
          end.error?.type.slice(0, 128) ?? null,
          end.error?.message ?? null,
          JSON.stringify(usages),
          JSON.stringify(tools),
          end.responses[0]?.responseId ?? '',
          end.prompt,
        ],
      )) as { seat: number }[];
      return (rows[0]?.seat ?? 0) > 0;
    };
    if (this.seatHolders_.has(interception.initiatorId)) {
      await write(this.dataSource.manager);
      return;
    }
    await this.transactions.run(async (tx) => {
      if (await write(tx.manager))
        await this.audit?.record(tx.manager, {
          actorUserId: interception.initiatorId,
          action: 'create',
          resourceType: 'ai_seat',
          resourceId: interception.initiatorId,
          resourceTarget: interception.providerName,
          additionalFields: { reason: 'aigateway', interception_id: interception.id },
        });
    });
    this.seatHolders_.add(interception.initiatorId);
  }

  /** Users this instance knows hold a seat (their records skip the audit transaction). */
  private readonly seatHolders_ = new Set<string>();

  /** A failed recording never fails the proxied request (the bytes already went to the client). */
  finishQuietly(interception: AiInterception, end: InterceptionEnd): Promise<void> {
    return this.finish(interception, end).catch((error: unknown) =>
      this.logger.error({ err: error, interception: interception.id }, 'recording an interception failed'),
    );
  }

  seatHolders(userIds: readonly string[]): Promise<{ user_id: string }[]> {
    return this.dataSource
      .getRepository(AiSeat)
      .query('SELECT user_id::text FROM ai_seats WHERE user_id = ANY($1)', [userIds]);
  }
}

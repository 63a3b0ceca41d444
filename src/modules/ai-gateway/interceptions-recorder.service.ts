import { type BeforeApplicationShutdown, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditLog } from '../../platform/audit/audit-log';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { AiInterception } from './entities/ai-interception.entity';
import { AiSeat } from './entities/ai-records.entity';
import type { ResponseFacts } from './wire/provider-wire';
import { wellFormed } from '../../platform/text/well-formed';

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

/** Records that end within this window share one statement; a batch is written at once at BATCH_MAX. */
const BATCH_MS = 10;
const BATCH_MAX = 200;

/** One finished interception as the batch statement reads it (jsonb_to_recordset). */
interface InterceptionRecord {
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

/** Text PostgreSQL can store: no NUL, no lone surrogate (a provider's or client's bytes may hold either). */
function storable(value: string): string;
function storable(value: string | null): string | null;
function storable(value: string | null): string | null {
  if (value === null) return null;
  return wellFormed(value.includes('\u0000') ? value.replaceAll('\u0000', '') : value);
}

function recordOf(interception: AiInterception, end: InterceptionEnd): InterceptionRecord {
  const model = interception.model || end.responses.find((response) => response.model)?.model || '';
  return {
    id: interception.id,
    initiator_id: interception.initiatorId,
    api_key_id: interception.apiKeyId,
    provider: interception.provider,
    provider_name: interception.providerName,
    model: storable(model.slice(0, 255)),
    client: interception.client,
    client_session_id: storable(interception.clientSessionId),
    thread_root_id: interception.threadRootId,
    session_id: storable(interception.sessionId),
    credential_kind: interception.credentialKind,
    credential_hint: interception.credentialHint,
    metadata: interception.metadata,
    started_at: interception.startedAt.toISOString(),
    ended_at: new Date().toISOString(),
    status_code: end.statusCode,
    error_type: storable(end.error?.type.slice(0, 128) ?? null),
    error_message: storable(end.error?.message ?? null),
    usages: end.responses
      .filter((response) => response.usage)
      .map((response) => ({
        provider_response_id: storable(response.responseId),
        input_tokens: response.usage!.input,
        output_tokens: response.usage!.output,
        cache_read_input_tokens: response.usage!.cacheRead,
        cache_write_input_tokens: response.usage!.cacheWrite,
      })),
    tools: end.responses.flatMap((response) =>
      response.toolCalls.map((call) => ({
        provider_response_id: storable(response.responseId),
        tool_call_id: storable(call.id),
        tool: storable(call.name.slice(0, 255)),
        input: storable(call.input),
      })),
    ),
    prompt_response_id: storable(end.responses[0]?.responseId ?? ''),
    prompt: storable(end.prompt),
  };
}

/**
 * Writes interceptions: prepared when the request arrives (thread root by tool-call correlation,
 * session id fixed then), written at the end with its token usages, prompt, tool calls, end time
 * and outcome, plus the initiator's AI seat (audited the first time). The ends of concurrent
 * requests are written together: one statement per BATCH_MS instead of one per request, which
 * under 50 streams was a tenth of the proxy's CPU (issue 18 item 8).
 */
@Injectable()
export class InterceptionsRecorder implements BeforeApplicationShutdown {
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
   * Queues the finished interception with its usages, prompt and tool calls; the records of every
   * interception that ends within BATCH_MS are written by one statement (`writeBatch`). Resolves
   * once this one is written.
   */
  finish(interception: AiInterception, end: InterceptionEnd): Promise<void> {
    const record = recordOf(interception, end);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
      if (this.pending.length >= BATCH_MAX) void this.flush();
      else if (!this.timer) {
        this.timer = setTimeout(() => void this.flush(), BATCH_MS);
        this.timer.unref();
      }
    });
  }

  /** A failed recording never fails the proxied request (the bytes already went to the client). */
  finishQuietly(interception: AiInterception, end: InterceptionEnd): Promise<void> {
    return this.finish(interception, end).catch((error: unknown) =>
      this.logger.error({ err: error, interception: interception.id }, 'recording an interception failed'),
    );
  }

  /** Writes what is queued now (tests, shutdown); resolves when every earlier batch is written. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending.splice(0);
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.writeOrSplit(batch));
    return this.flushing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  private pending: { record: InterceptionRecord; resolve: () => void; reject: (error: unknown) => void }[] =
    [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  /** One statement for the batch; if it fails, each record alone, so one bad record loses only itself. */
  private async writeOrSplit(
    batch: { record: InterceptionRecord; resolve: () => void; reject: (error: unknown) => void }[],
  ): Promise<void> {
    try {
      await this.writeBatch(batch.map((entry) => entry.record));
      for (const entry of batch) entry.resolve();
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    for (const entry of batch)
      await this.writeBatch([entry.record]).then(entry.resolve, (error: unknown) => entry.reject(error));
  }

  /**
   * The records and the initiators' AI seats in one statement. Usages, tool calls and prompts take
   * their interception's end as `created_at` (the order the API lists them in), not the batch's time. A user's first seat is audited in
   * the same transaction, so batches with an initiator this instance has not seen holding a seat
   * run in one; the others are a single autocommit statement.
   */
  private async writeBatch(records: InterceptionRecord[]): Promise<void> {
    const write = async (manager: EntityManager): Promise<string[]> => {
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
                  cache_read_input_tokens, cache_write_input_tokens, created_at)
           SELECT x.id, u.provider_response_id, u.input_tokens, u.output_tokens, u.cache_read_input_tokens,
                  u.cache_write_input_tokens, x.ended_at
             FROM x, jsonb_to_recordset(x.usages) AS u(provider_response_id text, input_tokens bigint,
                  output_tokens bigint, cache_read_input_tokens bigint, cache_write_input_tokens bigint)),
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
    };
    if (records.every((record) => this.seatHolders_.has(record.initiator_id))) {
      await write(this.dataSource.manager);
      return;
    }
    await this.transactions.run(async (tx) => {
      for (const userId of await write(tx.manager)) {
        const first = records.find((record) => record.initiator_id === userId)!;
        await this.audit?.record(tx.manager, {
          actorUserId: userId,
          action: 'create',
          resourceType: 'ai_seat',
          resourceId: userId,
          resourceTarget: first.provider_name,
          additionalFields: { reason: 'aigateway', interception_id: first.id },
        });
      }
    });
    for (const record of records) this.seatHolders_.add(record.initiator_id);
  }

  /** Users this instance knows hold a seat (their records skip the audit transaction). */
  private readonly seatHolders_ = new Set<string>();

  seatHolders(userIds: readonly string[]): Promise<{ user_id: string }[]> {
    return this.dataSource
      .getRepository(AiSeat)
      .query('SELECT user_id::text FROM ai_seats WHERE user_id = ANY($1)', [userIds]);
  }
}

import { type BeforeApplicationShutdown, Injectable, Logger, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AuditLog } from '../../platform/audit/audit-log';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import type { AiInterception } from './entities/ai-interception.entity';
import {
  type InterceptionRecord,
  InterceptionRecordsRepository,
} from './repositories/interception-records.repository';
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
        metadata: response.usage!.metadata,
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
    private readonly records: InterceptionRecordsRepository,
    private readonly transactions: TransactionRunner,
    private readonly metrics: MetricsService,
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
      const caller = await this.records.toolCaller(input.toolResultIds, input.initiatorId);
      if (caller) threadRootId = caller.thread_root_id ?? caller.id;
    }
    const id = randomUUID();
    return this.records.build({
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
    this.metrics.aiGatewayRequest(record.provider_name || record.provider, record.model, record.status_code, {
      input: end.responses.reduce((sum, response) => sum + (response.usage?.input ?? 0), 0),
      output: end.responses.reduce((sum, response) => sum + (response.usage?.output ?? 0), 0),
    });
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
    const write = (manager?: EntityManager): Promise<string[]> => this.records.insertBatch(records, manager);
    if (records.every((record) => this.seatHolders_.has(record.initiator_id))) {
      await write();
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
    return this.records.seatHolders(userIds);
  }
}

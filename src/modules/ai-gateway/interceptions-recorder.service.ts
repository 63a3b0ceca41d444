import { Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AuditLog } from '../../platform/audit/audit-log';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { AiInterception } from './entities/ai-interception.entity';
import { AiSeat, AiTokenUsage, AiToolUsage, AiUserPrompt } from './entities/ai-records.entity';
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

  async start(input: InterceptionStart): Promise<AiInterception> {
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
    const row = this.dataSource.getRepository(AiInterception).create({
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
    await this.dataSource.getRepository(AiInterception).insert(row as never);
    return row;
  }

  async finish(interception: AiInterception, end: InterceptionEnd): Promise<void> {
    const endedAt = new Date();
    await this.transactions.run(async (tx) => {
      const manager = tx.manager;
      for (const response of end.responses) {
        if (response.usage)
          await manager.getRepository(AiTokenUsage).insert({
            interceptionId: interception.id,
            providerResponseId: response.responseId,
            inputTokens: String(response.usage.input),
            outputTokens: String(response.usage.output),
            cacheReadInputTokens: String(response.usage.cacheRead),
            cacheWriteInputTokens: String(response.usage.cacheWrite),
          });
        for (const call of response.toolCalls)
          await manager.getRepository(AiToolUsage).insert({
            interceptionId: interception.id,
            providerResponseId: response.responseId,
            toolCallId: call.id,
            tool: call.name.slice(0, 255),
            input: call.input,
          });
      }
      const responseId = end.responses[0]?.responseId ?? '';
      if (end.prompt !== null)
        await manager.getRepository(AiUserPrompt).insert({
          interceptionId: interception.id,
          providerResponseId: responseId,
          prompt: end.prompt,
        });
      const model = end.responses.find((response) => response.model)?.model;
      await manager.getRepository(AiInterception).update(
        { id: interception.id },
        {
          endedAt,
          statusCode: end.statusCode,
          errorType: end.error?.type.slice(0, 128) ?? null,
          errorMessage: end.error?.message ?? null,
          ...(model && !interception.model ? { model } : {}),
        },
      );
      const seat = (await manager.query(
        `INSERT INTO ai_seats (user_id, first_used_at, reason) VALUES ($1, $2, 'aigateway')
         ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
        [interception.initiatorId, interception.startedAt],
      )) as unknown[];
      if (seat.length > 0)
        await this.audit?.record(manager, {
          actorUserId: interception.initiatorId,
          action: 'create',
          resourceType: 'ai_seat',
          resourceId: interception.initiatorId,
          resourceTarget: interception.providerName,
          additionalFields: { reason: 'aigateway', interception_id: interception.id },
        });
    });
  }

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

import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ChatMessage } from '../entities/chat-message.entity';

/** A `chat_messages` row as the driver returns it (read only here: callers get `ChatMessage`). */
interface StoredMessageRow {
  id: string;
  chat_id: string;
  role: string;
  content: Record<string, unknown>[];
  model_config_id: string | null;
  input_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  cache_read_tokens: string;
  cache_write_tokens: string;
  total_cost_micros: string | null;
  runtime_ms: number;
  created_at: Date;
}

/** The name the chat stream gateway imports (its file is the realtime layer's): a `ChatMessage`. */
export type MessageRow = ChatMessage;

/** The entity class is the module's message type; rows are mapped here. */
export function messageFromRow(row: StoredMessageRow): ChatMessage {
  return Object.assign(new ChatMessage(), {
    id: String(row.id),
    chatId: row.chat_id,
    role: row.role,
    content: row.content,
    modelConfigId: row.model_config_id ?? null,
    inputTokens: String(row.input_tokens),
    outputTokens: String(row.output_tokens),
    reasoningTokens: String(row.reasoning_tokens),
    cacheReadTokens: String(row.cache_read_tokens),
    cacheWriteTokens: String(row.cache_write_tokens),
    totalCostMicros: row.total_cost_micros === null ? null : String(row.total_cost_micros),
    runtimeMs: Number(row.runtime_ms),
    createdAt: row.created_at,
  });
}

/** An assistant (or tool) message with its usage and cost (micro-dollars as text; null = not priced). */
export interface NewModelMessage {
  chatId: string;
  role: string;
  content: Record<string, unknown>[];
  modelConfigId: string;
  usage: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
  costMicros: string | null;
  runtimeMs: number;
}

/** `chat_messages` (`ChatMessage`): what the users, the models and the tools said in a chat. */
@Injectable()
export class ChatMessagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A user message (its content as given). */
  async insertUser(chatId: string, content: unknown[], manager: EntityManager): Promise<ChatMessage> {
    const [message] = (await manager.query(
      `INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'user', $2) RETURNING *`,
      [chatId, JSON.stringify(content)],
    )) as StoredMessageRow[];
    return messageFromRow(message!);
  }

  /** A subagent's prompt, its first message. */
  async insertPrompt(chatId: string, prompt: string, manager: EntityManager): Promise<void> {
    await manager.query(`INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'user', $2)`, [
      chatId,
      JSON.stringify([{ type: 'text', text: prompt }]),
    ]);
  }

  /** A tool's result. */
  async insertToolResult(
    chatId: string,
    result: { tool_call_id: string; name: string; ok: boolean; output: string },
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(`INSERT INTO chat_messages (chat_id, role, content) VALUES ($1, 'tool', $2)`, [
      chatId,
      JSON.stringify([{ type: 'tool-result', ...result }]),
    ]);
  }

  async insertModelMessage(message: NewModelMessage, manager: EntityManager): Promise<ChatMessage> {
    const [row] = (await manager.query(
      `INSERT INTO chat_messages (chat_id, role, content, model_config_id, input_tokens, output_tokens, reasoning_tokens,
         cache_read_tokens, cache_write_tokens, total_cost_micros, runtime_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        message.chatId,
        message.role,
        JSON.stringify(message.content),
        message.modelConfigId,
        message.usage.input,
        message.usage.output,
        message.usage.reasoning,
        message.usage.cacheRead,
        message.usage.cacheWrite,
        message.costMicros,
        message.runtimeMs,
      ],
    )) as StoredMessageRow[];
    return messageFromRow(row!);
  }

  /** The tool calls the models made in the chat and its ancestors (name and JSON arguments). */
  async lineageToolCalls(chatId: string): Promise<{ name: string; arguments: string | null }[]> {
    return (await this.dataSource.query(
      `WITH RECURSIVE lineage AS (
         SELECT id, parent_chat_id FROM chats WHERE id = $1
         UNION ALL SELECT c.id, c.parent_chat_id FROM chats c JOIN lineage l ON c.id = l.parent_chat_id)
       SELECT part->>'name' AS name, part->>'arguments' AS arguments
         FROM chat_messages m CROSS JOIN LATERAL jsonb_array_elements(m.content) part
        WHERE m.chat_id IN (SELECT id FROM lineage) AND m.role = 'assistant' AND part->>'type' = 'tool-call'`,
      [chatId],
    )) as { name: string; arguments: string | null }[];
  }

  /** Up to `limit` messages, newest first, older than `beforeId` when given. */
  async newestFirst(chatId: string, limit: number, beforeId?: number): Promise<ChatMessage[]> {
    const params: unknown[] = [chatId, limit];
    let where = 'chat_id = $1';
    if (beforeId !== undefined) {
      params.push(beforeId);
      where += ' AND id < $3';
    }
    const rows = (await this.dataSource.query(
      `SELECT * FROM chat_messages WHERE ${where} ORDER BY id DESC LIMIT $2`,
      params,
    )) as StoredMessageRow[];
    return rows.map(messageFromRow);
  }

  /** Up to `limit` messages newer than `afterId` (0: from the start), oldest first (the chat stream). */
  async after(chatId: string, afterId: number, limit: number): Promise<ChatMessage[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM chat_messages WHERE chat_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [chatId, afterId, limit],
    )) as StoredMessageRow[];
    return rows.map(messageFromRow);
  }

  /** The chat's whole history, oldest first. */
  async all(chatId: string): Promise<ChatMessage[]> {
    const rows = (await this.dataSource.query('SELECT * FROM chat_messages WHERE chat_id = $1 ORDER BY id', [
      chatId,
    ])) as StoredMessageRow[];
    return rows.map(messageFromRow);
  }
}

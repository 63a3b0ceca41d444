import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Sums over assistant messages (the cost reports' common columns). */
export interface CostSums {
  totalCostMicros: number;
  pricedMessageCount: number;
  unpricedMessageCount: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCacheReadTokens: number;
  totalCacheCreationTokens: number;
  totalRuntimeMs: number;
}

/** A user's cost with one model configuration (`modelConfigId` null: messages without one). */
export interface ModelCost extends CostSums {
  modelConfigId: string | null;
  displayName: string | null;
  provider: string | null;
  model: string | null;
  messageCount: number;
}

/** A user's cost in one chat tree. */
export interface ChatTreeCost extends CostSums {
  rootChatId: string;
  chatTitle: string | null;
  messageCount: number;
}

/** One owner's cost over a period. */
export interface OwnerCost extends CostSums {
  ownerId: string;
  messageCount: number;
  chatCount: number;
}

type SumsRow = Record<string, string | number | null>;

const sumsFrom = (row: SumsRow | undefined): CostSums => ({
  totalCostMicros: Number(row?.total_cost_micros ?? 0),
  pricedMessageCount: Number(row?.priced_message_count ?? 0),
  unpricedMessageCount: Number(row?.unpriced_message_count ?? 0),
  totalInputTokens: Number(row?.total_input_tokens ?? 0),
  totalOutputTokens: Number(row?.total_output_tokens ?? 0),
  totalCacheReadTokens: Number(row?.total_cache_read_tokens ?? 0),
  totalCacheCreationTokens: Number(row?.total_cache_creation_tokens ?? 0),
  totalRuntimeMs: Number(row?.total_runtime_ms ?? 0),
});
const textOrNull = (value: string | number | null | undefined): string | null =>
  value === null || value === undefined ? null : String(value);

/**
 * The cost reports over `chat_messages` (assistant messages carry the usage and cost): a chat tree's
 * cost, a user's summary, every owner's cost (the owners' names come from identity's directory).
 */
@Injectable()
export class ChatCostsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The cost of a chat tree (root and subagents). */
  async treeCost(rootId: string): Promise<{ total: string; requests: number; unpriced: number } | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT COALESCE(sum(m.total_cost_micros), 0)::text AS total, count(*)::int AS requests,
              count(*) FILTER (WHERE m.total_cost_micros IS NULL)::int AS unpriced
         FROM chat_messages m JOIN chats c ON c.id = m.chat_id
        WHERE (c.id = $1 OR c.root_chat_id = $1) AND m.role = 'assistant'`,
      [rootId],
    )) as { total: string; requests: number; unpriced: number }[];
    return row;
  }

  /** Trees' costs and the pull requests each tree opened, by root id. */
  async treeCostsAndPulls(rootIds: string[]): Promise<{ root: string; cost: string; pulls: number }[]> {
    return (await this.dataSource.query(
      `SELECT t.root, COALESCE((SELECT sum(m.total_cost_micros) FROM chat_messages m JOIN chats c ON c.id = m.chat_id
                                  WHERE (c.id = t.root OR c.root_chat_id = t.root) AND m.role = 'assistant'), 0)::text AS cost,
              (SELECT count(*) FROM chat_pull_requests l JOIN chats c ON c.id = l.chat_id
                WHERE c.id = t.root OR c.root_chat_id = t.root)::int AS pulls
         FROM unnest($1::uuid[]) AS t(root)`,
      [rootIds],
    )) as { root: string; cost: string; pulls: number }[];
  }

  /** A user's cost summary over [start, end): totals, by model, by root chat. */
  async summary(
    ownerId: string,
    start: Date,
    end: Date,
  ): Promise<{ total: CostSums; byModel: ModelCost[]; byChat: ChatTreeCost[] }> {
    const params = [ownerId, start, end];
    const base = `FROM chat_messages m JOIN chats c ON c.id = m.chat_id
       WHERE c.owner_id = $1 AND m.role = 'assistant' AND m.created_at >= $2 AND m.created_at < $3`;
    const sums = `COALESCE(sum(m.total_cost_micros), 0)::text AS total_cost_micros,
       count(*) FILTER (WHERE m.total_cost_micros IS NOT NULL)::int AS priced_message_count,
       count(*) FILTER (WHERE m.total_cost_micros IS NULL)::int AS unpriced_message_count,
       COALESCE(sum(m.input_tokens), 0)::text AS total_input_tokens, COALESCE(sum(m.output_tokens), 0)::text AS total_output_tokens,
       COALESCE(sum(m.cache_read_tokens), 0)::text AS total_cache_read_tokens,
       COALESCE(sum(m.cache_write_tokens), 0)::text AS total_cache_creation_tokens,
       COALESCE(sum(m.runtime_ms), 0)::text AS total_runtime_ms`;
    const [total] = (await this.dataSource.query(`SELECT ${sums} ${base}`, params)) as SumsRow[];
    const byModel = (await this.dataSource.query(
      `SELECT m.model_config_id, mc.display_name, mc.provider, mc.model, count(*)::int AS message_count, ${sums} ${base.replace(
        'FROM chat_messages m JOIN chats c ON c.id = m.chat_id',
        'FROM chat_messages m JOIN chats c ON c.id = m.chat_id LEFT JOIN chat_model_configs mc ON mc.id = m.model_config_id',
      )} GROUP BY m.model_config_id, mc.display_name, mc.provider, mc.model ORDER BY sum(m.total_cost_micros) DESC NULLS LAST`,
      params,
    )) as SumsRow[];
    const byChat = (await this.dataSource.query(
      `SELECT grouped.*, (SELECT title FROM chats r WHERE r.id = grouped.root_chat_id) AS chat_title
         FROM (SELECT COALESCE(c.root_chat_id, c.id) AS root_chat_id, count(*)::int AS message_count, ${sums} ${base}
                GROUP BY COALESCE(c.root_chat_id, c.id)) grouped
        ORDER BY grouped.total_cost_micros::numeric DESC`,
      params,
    )) as SumsRow[];
    return {
      total: sumsFrom(total),
      byModel: byModel.map((row) => ({
        ...sumsFrom(row),
        modelConfigId: textOrNull(row.model_config_id),
        displayName: textOrNull(row.display_name),
        provider: textOrNull(row.provider),
        model: textOrNull(row.model),
        messageCount: Number(row.message_count),
      })),
      byChat: byChat.map((row) => ({
        ...sumsFrom(row),
        rootChatId: String(row.root_chat_id),
        chatTitle: textOrNull(row.chat_title),
        messageCount: Number(row.message_count),
      })),
    };
  }

  /**
   * Every owner's chat cost over [start, end), paged, most expensive first (ties by owner uuid);
   * `ownerUuids` narrows the owners (the caller resolved a user name). Rows carry the owner's uuid.
   */
  async byOwner(
    start: Date,
    end: Date,
    ownerUuids: string[] | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ owners: OwnerCost[]; count: number }> {
    const params: unknown[] = [start, end];
    let filter = '';
    if (ownerUuids) {
      params.push(ownerUuids);
      filter = `AND c.owner_id = ANY($${params.length}::uuid[])`;
    }
    const rows = (await this.dataSource.query(
      `SELECT c.owner_id::text AS user_id,
              COALESCE(sum(m.total_cost_micros), 0)::text AS total_cost_micros, count(*)::int AS message_count,
              count(DISTINCT COALESCE(c.root_chat_id, c.id))::int AS chat_count,
              COALESCE(sum(m.input_tokens), 0)::text AS total_input_tokens, COALESCE(sum(m.output_tokens), 0)::text AS total_output_tokens,
              COALESCE(sum(m.cache_read_tokens), 0)::text AS total_cache_read_tokens,
              COALESCE(sum(m.cache_write_tokens), 0)::text AS total_cache_creation_tokens,
              COALESCE(sum(m.runtime_ms), 0)::text AS total_runtime_ms, count(*) OVER ()::int AS full_count
         FROM chat_messages m JOIN chats c ON c.id = m.chat_id
        WHERE m.role = 'assistant' AND m.created_at >= $1 AND m.created_at < $2 ${filter}
        GROUP BY c.owner_id
        ORDER BY sum(m.total_cost_micros) DESC NULLS LAST, c.owner_id
        LIMIT ${page.limit || 10} OFFSET ${page.offset}`,
      params,
    )) as SumsRow[];
    return {
      owners: rows.map((row) => ({
        ...sumsFrom(row),
        ownerId: String(row.user_id),
        messageCount: Number(row.message_count),
        chatCount: Number(row.chat_count),
      })),
      count: Number(rows[0]?.full_count ?? 0),
    };
  }
}

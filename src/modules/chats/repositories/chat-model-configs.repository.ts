import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';
import type { ChatModelConfig } from '../entities/chat-model-config.entity';

/** The stored fields of a model configuration (prices in micro-dollars per million tokens, null = not priced). */
export interface ModelConfigValues {
  provider: string;
  model: string;
  displayName: string;
  inputPriceMicros: string | null;
  outputPriceMicros: string | null;
  cacheReadPriceMicros: string | null;
  cacheWritePriceMicros: string | null;
}

export function modelConfigFromRow(row: Record<string, unknown>): ChatModelConfig {
  return {
    id: row.id as string,
    provider: row.provider as string,
    model: row.model as string,
    displayName: row.display_name as string,
    inputPriceMicros: row.input_price_micros as string | null,
    outputPriceMicros: row.output_price_micros as string | null,
    cacheReadPriceMicros: row.cache_read_price_micros as string | null,
    cacheWritePriceMicros: row.cache_write_price_micros as string | null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** `chat_model_configs`: the model configurations chats run with. */
@Injectable()
export class ChatModelConfigsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async all(): Promise<ChatModelConfig[]> {
    const rows = (await this.dataSource.query(
      'SELECT * FROM chat_model_configs ORDER BY display_name, id',
    )) as Record<string, unknown>[];
    return rows.map(modelConfigFromRow);
  }

  /** The configuration with this id (a well-formed uuid), or null. */
  async findById(
    id: string,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<ChatModelConfig | null> {
    const [row] = (await manager.query('SELECT * FROM chat_model_configs WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    return row ? modelConfigFromRow(row) : null;
  }

  async insert(values: ModelConfigValues): Promise<ChatModelConfig> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO chat_model_configs (provider, model, display_name, input_price_micros, output_price_micros,
         cache_read_price_micros, cache_write_price_micros) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [
        values.provider,
        values.model,
        values.displayName,
        values.inputPriceMicros,
        values.outputPriceMicros,
        values.cacheReadPriceMicros,
        values.cacheWritePriceMicros,
      ],
    )) as Record<string, unknown>[];
    return modelConfigFromRow(row!);
  }

  /** Replaces every field; null when the configuration is gone. */
  async update(id: string, values: ModelConfigValues): Promise<ChatModelConfig | null> {
    const [row] = resultRows<Record<string, unknown>>(
      await this.dataSource.query(
        `UPDATE chat_model_configs SET provider = $2, model = $3, display_name = $4, input_price_micros = $5,
         output_price_micros = $6, cache_read_price_micros = $7, cache_write_price_micros = $8, updated_at = now()
       WHERE id = $1 RETURNING *`,
        [
          id,
          values.provider,
          values.model,
          values.displayName,
          values.inputPriceMicros,
          values.outputPriceMicros,
          values.cacheReadPriceMicros,
          values.cacheWritePriceMicros,
        ],
      ),
    );
    return row ? modelConfigFromRow(row) : null;
  }

  /** Whether a chat still runs with the configuration. */
  async inUse(id: string, manager: EntityManager): Promise<boolean> {
    const [used] = (await manager.query('SELECT 1 FROM chats WHERE last_model_config_id = $1 LIMIT 1', [
      id,
    ])) as unknown[];
    return Boolean(used);
  }

  /** Deletes the configuration; false when there was none. */
  async delete(id: string, manager: EntityManager): Promise<boolean> {
    const deleted = resultRows(
      await manager.query('DELETE FROM chat_model_configs WHERE id = $1 RETURNING id', [id]),
    );
    return deleted.length > 0;
  }
}

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One message of a chat; assistant messages carry their token usage and cost. */
@Entity({ name: 'chat_messages' })
@Index('chat_messages_chat', ['chatId', 'id'])
export class ChatMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'chat_id', type: 'uuid' })
  chatId: string;

  /** user, assistant, tool, system. */
  @Column({ type: 'varchar', length: 16 })
  role: string;

  /** Coder's input parts: `[{type: text, text}, {type: file, file_id}]`. */
  @Column({ type: 'jsonb' })
  content: Record<string, unknown>[];

  @Column({ name: 'model_config_id', type: 'uuid', nullable: true })
  modelConfigId: string | null;

  @Column({ name: 'input_tokens', type: 'bigint', default: 0 })
  inputTokens: string;

  /** Reasoning tokens are counted inside these. */
  @Column({ name: 'output_tokens', type: 'bigint', default: 0 })
  outputTokens: string;

  @Column({ name: 'reasoning_tokens', type: 'bigint', default: 0 })
  reasoningTokens: string;

  @Column({ name: 'cache_read_tokens', type: 'bigint', default: 0 })
  cacheReadTokens: string;

  @Column({ name: 'cache_write_tokens', type: 'bigint', default: 0 })
  cacheWriteTokens: string;

  /** null: not priced by its model configuration. */
  @Column({ name: 'total_cost_micros', type: 'bigint', nullable: true })
  totalCostMicros: string | null;

  @Column({ name: 'runtime_ms', type: 'integer', default: 0 })
  runtimeMs: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

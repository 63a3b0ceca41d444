import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A model configuration chats run on: an AI gateway provider and model, with prices in micro-dollars
 * per million tokens (null: not priced).
 */
@Entity({ name: 'chat_model_configs' })
export class ChatModelConfig {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The AI gateway provider's name. */
  @Column({ type: 'varchar', length: 63 })
  provider: string;

  @Column({ type: 'varchar', length: 255 })
  model: string;

  @Column({ name: 'display_name', type: 'varchar', length: 255 })
  displayName: string;

  @Column({ name: 'input_price_micros', type: 'bigint', nullable: true })
  inputPriceMicros: string | null;

  @Column({ name: 'output_price_micros', type: 'bigint', nullable: true })
  outputPriceMicros: string | null;

  @Column({ name: 'cache_read_price_micros', type: 'bigint', nullable: true })
  cacheReadPriceMicros: string | null;

  @Column({ name: 'cache_write_price_micros', type: 'bigint', nullable: true })
  cacheWritePriceMicros: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A user's own settings as key/value pairs (Coder's `user_configs`): appearance, preferences, quiet hours,
 * the Git SSH key, chat settings. `value` is JSON text; a sealed secret where the key says so.
 */
@Entity({ name: 'user_configs' })
export class UserConfig {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  key: string;

  @Column({ type: 'text' })
  value: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

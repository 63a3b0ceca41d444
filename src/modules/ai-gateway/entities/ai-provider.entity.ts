import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A provider instance (name, type, base URL, the centralized key sealed with the SecretBox). */
@Entity({ name: 'ai_gateway_providers' })
export class AiProvider {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 63, unique: true })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  type: 'openai' | 'anthropic';

  @Column({ name: 'base_url', type: 'varchar', length: 2048 })
  baseUrl: string;

  /** Sealed (AES-256-GCM under SECRETS_KEY, bound to the provider id); null = no centralized key. */
  @Column({ name: 'sealed_key', type: 'text', nullable: true })
  sealedKey: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One proxied request to a provider (Coder's AI Bridge interception). `session_id` is fixed when the
 * request arrives: the client's session key, else the thread root, else the interception's own id.
 * The initiator is kept by id without a foreign key (records outlive users).
 */
@Entity({ name: 'ai_gateway_interceptions' })
@Index('IDX_ai_interceptions_started', ['startedAt', 'id'])
@Index('IDX_ai_interceptions_session', ['sessionId', 'initiatorId'])
@Index('IDX_ai_interceptions_initiator', ['initiatorId', 'startedAt'])
export class AiInterception {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'initiator_id', type: 'bigint' })
  initiatorId: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 16, nullable: true })
  apiKeyId: string | null;

  @Column({ type: 'varchar', length: 16 })
  provider: string;

  @Column({ name: 'provider_name', type: 'varchar', length: 63 })
  providerName: string;

  @Column({ type: 'varchar', length: 255 })
  model: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  client: string | null;

  @Column({ name: 'client_session_id', type: 'varchar', length: 256, nullable: true })
  clientSessionId: string | null;

  @Column({ name: 'thread_root_id', type: 'uuid', nullable: true })
  threadRootId: string | null;

  @Column({ name: 'session_id', type: 'varchar', length: 256 })
  sessionId: string;

  @Column({ name: 'credential_kind', type: 'varchar', length: 16 })
  credentialKind: 'centralized' | 'byok';

  @Column({ name: 'credential_hint', type: 'varchar', length: 32, default: '' })
  credentialHint: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, unknown>;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'error_type', type: 'varchar', length: 128, nullable: true })
  errorType: string | null;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage: string | null;
}

import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { AiInterception } from './ai-interception.entity';

/** Token usage of one provider response. */
@Entity({ name: 'ai_gateway_token_usages' })
@Index('IDX_ai_token_usages_interception', ['interceptionId'])
export class AiTokenUsage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'interception_id', type: 'uuid' }) interceptionId: string;
  @ManyToOne(() => AiInterception, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'interception_id' })
  interception: Relation<AiInterception>;
  @Column({ name: 'provider_response_id', type: 'varchar', length: 255, default: '' })
  providerResponseId: string;
  @Column({ name: 'input_tokens', type: 'bigint', default: 0 }) inputTokens: string;
  @Column({ name: 'output_tokens', type: 'bigint', default: 0 }) outputTokens: string;
  @Column({ name: 'cache_read_input_tokens', type: 'bigint', default: 0 }) cacheReadInputTokens: string;
  @Column({ name: 'cache_write_input_tokens', type: 'bigint', default: 0 }) cacheWriteInputTokens: string;
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata: Record<string, unknown>;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** The user prompt of one request (the last user message). */
@Entity({ name: 'ai_gateway_user_prompts' })
@Index('IDX_ai_user_prompts_interception', ['interceptionId'])
export class AiUserPrompt {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'interception_id', type: 'uuid' }) interceptionId: string;
  @ManyToOne(() => AiInterception, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'interception_id' })
  interception: Relation<AiInterception>;
  @Column({ name: 'provider_response_id', type: 'varchar', length: 255, default: '' })
  providerResponseId: string;
  @Column({ type: 'text' }) prompt: string;
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata: Record<string, unknown>;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** A tool call the model made in a response; `tool_call_id` correlates later requests into threads. */
@Entity({ name: 'ai_gateway_tool_usages' })
@Index('IDX_ai_tool_usages_interception', ['interceptionId'])
@Index('IDX_ai_tool_usages_call', ['toolCallId'])
export class AiToolUsage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'interception_id', type: 'uuid' }) interceptionId: string;
  @ManyToOne(() => AiInterception, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'interception_id' })
  interception: Relation<AiInterception>;
  @Column({ name: 'provider_response_id', type: 'varchar', length: 255, default: '' })
  providerResponseId: string;
  @Column({ name: 'tool_call_id', type: 'varchar', length: 255, default: '' }) toolCallId: string;
  @Column({ name: 'server_url', type: 'varchar', length: 2048, default: '' }) serverUrl: string;
  @Column({ type: 'varchar', length: 255 }) tool: string;
  @Column({ type: 'text', default: '' }) input: string;
  @Column({ type: 'boolean', default: false }) injected: boolean;
  @Column({ name: 'invocation_error', type: 'text', nullable: true }) invocationError: string | null;
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata: Record<string, unknown>;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

/** A user holding an AI seat since their first AI use (the AI seat rule). */
@Entity({ name: 'ai_seats' })
export class AiSeat {
  @PrimaryColumn({ name: 'user_id', type: 'bigint' }) userId: string;
  @Column({ name: 'first_used_at', type: 'timestamptz' }) firstUsedAt: Date;
  @Column({ type: 'varchar', length: 32 }) reason: string;
}

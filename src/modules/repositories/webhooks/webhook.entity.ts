import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import { Repository } from '../entities/repository.entity';

export type HookContentType = 'json' | 'form';

/**
 * A Gitea webhook: of one repository (`repository_id`) or of an organization (`owner_id`: it fires
 * for every repository the organization owns). The secret and the authorization header are sealed
 * with the SecretBox (SECRETS_KEY); `events` holds Gitea's event names as chosen (`push`,
 * `issues`, `pull_request`, ...).
 */
@Entity({ name: 'webhooks' })
@Index('IDX_webhooks_repository', ['repositoryId', 'id'])
@Index('IDX_webhooks_owner', ['ownerId', 'id'])
export class Webhook {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'repository_id', type: 'bigint', nullable: true })
  repositoryId: string | null;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository> | null;

  @Column({ name: 'owner_id', type: 'bigint', nullable: true })
  ownerId: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'owner_id' })
  owner: Relation<User> | null;

  @Column({ type: 'varchar', length: 32, default: 'gitea' })
  type: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ name: 'content_type', type: 'varchar', length: 8, default: 'json' })
  contentType: HookContentType;

  /** Sealed; '' when none. */
  @Column({ name: 'secret_sealed', type: 'text', default: '' })
  secretSealed: string;

  /** Sealed; '' when none. */
  @Column({ name: 'authorization_sealed', type: 'text', default: '' })
  authorizationSealed: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  events: string[];

  @Column({ name: 'branch_filter', type: 'text', default: '' })
  branchFilter: string;

  @Column({ type: 'boolean', default: false })
  active: boolean;

  /** Outcome of the last delivery: `none`, `succeed`, `fail` (Gitea's HookStatus). */
  @Column({ name: 'last_status', type: 'varchar', length: 8, default: 'none' })
  lastStatus: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/**
 * One delivery of one event to one hook (Gitea's HookTask): the payload as it will be signed and
 * sent, the outcome of the last attempt. `event_key` is unique per hook: the event's idempotency key,
 * so an event delivered twice to the listener (the outbox's at-least-once) queues one delivery.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('IDX_webhook_deliveries_hook_key', ['hookId', 'eventKey'], { unique: true })
export class WebhookDelivery {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'hook_id', type: 'bigint' })
  hookId: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'hook_id' })
  hook: Relation<Webhook>;

  /** `X-Gitea-Delivery`. */
  @Column({ type: 'uuid' })
  uuid: string;

  @Column({ name: 'event_key', type: 'text' })
  eventKey: string;

  /** Gitea's HookEventType (`push`, `pull_request_sync`, `issue_comment`, ...): `X-Gitea-Event-Type`. */
  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType: string;

  /** The JSON payload as signed and sent. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The start of the receiver's answer or the error (URLs redacted). */
  @Column({ name: 'response_body', type: 'text', default: '' })
  responseBody: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;
}

/** The tables of repository webhooks (listed by entities/index.ts). */
export const WEBHOOK_ENTITIES: Function[] = [Webhook, WebhookDelivery];

import { CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An event the workflow engine has already acted on, by the idempotency key its emitter gave
 * (`SubjectEventBase.idempotencyKey`, e.g. a push job's id and ref). Written in the transaction that
 * queues the event's webhook deliveries, so an event emitted again by a retried job queues nothing.
 */
@Entity({ name: 'workflow_event_receipts' })
@Index('IDX_workflow_event_receipts_created_at', ['createdAt'])
export class WorkflowEventReceipt {
  @PrimaryColumn({ type: 'varchar', length: 200 })
  key: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A workflow rule (Nextcloud `oc_flow_operations`). `checks` is the ordered list of `flow_checks.id`. */
@Entity({ name: 'flow_operations' })
@Index('IDX_flow_operations_class', ['class'])
export class FlowOperation {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 256 })
  class: string;

  @Column({ type: 'varchar', length: 256, default: '' })
  name: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  checks: number[];

  @Column({ type: 'text', default: '' })
  operation: string;

  @Column({ type: 'varchar', length: 256 })
  entity: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  events: string[];

  @Column({ type: 'text', default: '' })
  description: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

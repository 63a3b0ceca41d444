import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { FlowOperation } from './flow-operation.entity';

/** Which scope a rule lives in (Nextcloud `oc_flow_operations_scope`): type 0 admin (value ''), 1 user (value = user id). */
@Entity({ name: 'flow_operations_scope' })
@Index('UQ_flow_operations_scope', ['operationId', 'type', 'value'], { unique: true })
@Index('IDX_flow_operations_scope_type_value', ['type', 'value'])
export class FlowOperationScope {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'operation_id', type: 'integer' })
  operationId: number;

  @ManyToOne(() => FlowOperation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'operation_id' })
  operationRow: Relation<FlowOperation>;

  @Column({ type: 'smallint' })
  type: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  value: string;
}

import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A check (Nextcloud `oc_flow_checks`), shared by every rule that uses the same
 * (class, operator, value): `hash` = md5(class + "::" + operator + "::" + value). Never deleted.
 */
@Entity({ name: 'flow_checks' })
@Index('UQ_flow_checks_hash', ['hash'], { unique: true })
export class FlowCheck {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 256 })
  class: string;

  @Column({ type: 'varchar', length: 16 })
  operator: string;

  @Column({ type: 'text' })
  value: string;

  @Column({ type: 'char', length: 32 })
  hash: string;
}

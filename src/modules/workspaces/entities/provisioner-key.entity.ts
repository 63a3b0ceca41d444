import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** An organization-scoped provisioner key: daemons present it in `Service-Provisioner-Key`. */
@Entity({ name: 'provisioner_keys' })
@Index('provisioner_keys_org_name', ['organizationId', 'lowerName'], { unique: true })
export class ProvisionerKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'lower_name', type: 'varchar', length: 64 })
  lowerName: string;

  /** SHA-256 of the key (hex); the key itself is shown once. */
  @Index('provisioner_keys_hash', { unique: true })
  @Column({ name: 'hashed_secret', type: 'char', length: 64 })
  hashedSecret: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  tags: Record<string, string>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

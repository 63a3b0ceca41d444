import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Deployment-wide settings as key/value pairs (deployment id, notifier paused, ...). */
@Entity({ name: 'site_configs' })
export class SiteConfig {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  key: string;

  @Column({ type: 'text' })
  value: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

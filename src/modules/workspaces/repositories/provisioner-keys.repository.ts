import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';

export interface ProvisionerKeyRow {
  id: string;
  organization_id: string;
  name: string;
  tags: Record<string, string>;
  created_at: Date;
}

/** The SQL of organization provisioner keys (`provisioner_keys`; names unique per organization, case-insensitive). */
@Injectable()
export class ProvisionerKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findByHashedSecret(hashedSecret: string): Promise<Omit<ProvisionerKeyRow, 'created_at'> | undefined> {
    const [row] = (await this.dataSource.query(
      'SELECT id, organization_id, name, tags FROM provisioner_keys WHERE hashed_secret = $1',
      [hashedSecret],
    )) as ProvisionerKeyRow[];
    return row;
  }

  /** Inserts a key; false when the organization has one of that name already. */
  async insert(
    organizationId: string,
    name: string,
    hashedSecret: string,
    tags: Record<string, string>,
  ): Promise<boolean> {
    const inserted = (await this.dataSource.query(
      `INSERT INTO provisioner_keys (organization_id, name, lower_name, hashed_secret, tags) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, lower_name) DO NOTHING RETURNING id`,
      [organizationId, name, name.toLowerCase(), hashedSecret, JSON.stringify(tags)],
    )) as unknown[];
    return inserted.length > 0;
  }

  async listForOrganization(organizationId: string): Promise<ProvisionerKeyRow[]> {
    return (await this.dataSource.query(
      'SELECT id, organization_id, name, tags, created_at FROM provisioner_keys WHERE organization_id = $1 ORDER BY lower_name',
      [organizationId],
    )) as ProvisionerKeyRow[];
  }

  /** Deletes the organization's key of that name (any case); false when there is none. */
  async deleteByName(organizationId: string, name: string): Promise<boolean> {
    const deleted = resultRows(
      await this.dataSource.query(
        'DELETE FROM provisioner_keys WHERE organization_id = $1 AND lower_name = $2 RETURNING id',
        [organizationId, name.toLowerCase()],
      ),
    );
    return deleted.length > 0;
  }
}

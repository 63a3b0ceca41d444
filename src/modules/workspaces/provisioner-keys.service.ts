import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { ProvisionerKeyIdentity, ProvisionerKeyLookup } from '../auth/principal-ports';
import { hashToken } from './provisioner-jobs.service';
import { resultRows } from '../../platform/database/result-rows';

export interface ProvisionerKeyRow {
  id: string;
  organization_id: string;
  name: string;
  tags: Record<string, string>;
  created_at: Date;
}

const KEY_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9_-]*[a-zA-Z0-9])?$/;
/** Coder's built-in key names, which users cannot take. */
const RESERVED = new Set(['built-in', 'psk', 'user-auth', 'key']);

/** Organization provisioner keys: daemons present them in `Service-Provisioner-Key` (PROVISIONER_KEY_LOOKUP). */
@Injectable()
export class ProvisionerKeysService implements ProvisionerKeyLookup {
  constructor(private readonly dataSource: DataSource) {}

  async findByKey(key: string): Promise<ProvisionerKeyIdentity | null> {
    const [row] = (await this.dataSource.query(
      'SELECT id, organization_id, name, tags FROM provisioner_keys WHERE hashed_secret = $1',
      [hashToken(key)],
    )) as ProvisionerKeyRow[];
    return row
      ? { keyId: row.id, organizationId: row.organization_id, name: row.name, tags: row.tags }
      : null;
  }

  /** Creates a key; the secret is returned once. */
  async create(organizationId: string, name: string, tags: Record<string, string>): Promise<string> {
    if (name.length > 64 || !KEY_NAME.test(name))
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'name', detail: 'must be 1-64 letters, digits, "-" or "_"' }],
      });
    if (RESERVED.has(name.toLowerCase()))
      throw new InvalidError(`Name cannot be reserved name '${name.toLowerCase()}'`, {
        fields: [{ field: 'name', detail: 'reserved name' }],
      });
    const secret = randomBytes(32).toString('base64url');
    const inserted = (await this.dataSource.query(
      `INSERT INTO provisioner_keys (organization_id, name, lower_name, hashed_secret, tags) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, lower_name) DO NOTHING RETURNING id`,
      [organizationId, name, name.toLowerCase(), hashToken(secret), JSON.stringify(tags)],
    )) as unknown[];
    if (inserted.length === 0)
      throw new ConflictError(`Provisioner key with name '${name}' already exists in organization`, {
        fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    return secret;
  }

  async list(organizationId: string): Promise<ProvisionerKeyRow[]> {
    return (await this.dataSource.query(
      'SELECT id, organization_id, name, tags, created_at FROM provisioner_keys WHERE organization_id = $1 ORDER BY lower_name',
      [organizationId],
    )) as ProvisionerKeyRow[];
  }

  async delete(organizationId: string, name: string): Promise<void> {
    const deleted = resultRows(
      await this.dataSource.query(
        'DELETE FROM provisioner_keys WHERE organization_id = $1 AND lower_name = $2 RETURNING id',
        [organizationId, name.toLowerCase()],
      ),
    );
    if (deleted.length === 0)
      throw new NotFoundError('Resource not found or you do not have access to this resource');
  }
}

import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { ProvisionerKeyIdentity, ProvisionerKeyLookup } from '../../api/access/principal-ports';
import { hashToken } from './provisioner-jobs.service';
import {
  type ProvisionerKeyInfo,
  ProvisionerKeysRepository,
} from './repositories/provisioner-keys.repository';

export type { ProvisionerKeyInfo };

const KEY_NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9_-]*[a-zA-Z0-9])?$/;
/** Coder's built-in key names, which users cannot take. */
const RESERVED = new Set(['built-in', 'psk', 'user-auth', 'key']);

/** Organization provisioner keys: daemons present them in `Service-Provisioner-Key` (PROVISIONER_KEY_LOOKUP). */
@Injectable()
export class ProvisionerKeysService implements ProvisionerKeyLookup {
  constructor(private readonly keys: ProvisionerKeysRepository) {}

  async findByKey(key: string): Promise<ProvisionerKeyIdentity | null> {
    const row = await this.keys.findByHashedSecret(hashToken(key));
    return row ? { keyId: row.id, organizationId: row.organizationId, name: row.name, tags: row.tags } : null;
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
    if (!(await this.keys.insert(organizationId, name, hashToken(secret), tags)))
      throw new ConflictError(`Provisioner key with name '${name}' already exists in organization`, {
        fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    return secret;
  }

  async list(organizationId: string): Promise<ProvisionerKeyInfo[]> {
    return this.keys.listForOrganization(organizationId);
  }

  async delete(organizationId: string, name: string): Promise<void> {
    if (!(await this.keys.deleteByName(organizationId, name)))
      throw new NotFoundError('Resource not found or you do not have access to this resource');
  }
}

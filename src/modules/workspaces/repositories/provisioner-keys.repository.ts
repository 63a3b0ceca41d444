import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProvisionerKey } from '../entities/provisioner-key.entity';

/** What readers see of a key (never its hash). */
export type ProvisionerKeyInfo = Pick<
  ProvisionerKey,
  'id' | 'organizationId' | 'name' | 'tags' | 'createdAt'
>;

/**
 * Organization provisioner keys through `Repository<ProvisionerKey>` (`provisioner_keys`; names unique per
 * organization, case-insensitive, by `lower_name`).
 */
@Injectable()
export class ProvisionerKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get keys() {
    return this.dataSource.getRepository(ProvisionerKey);
  }

  async findByHashedSecret(hashedSecret: string): Promise<Omit<ProvisionerKeyInfo, 'createdAt'> | null> {
    return this.keys.findOne({
      select: { id: true, organizationId: true, name: true, tags: true },
      where: { hashedSecret },
    });
  }

  /** Inserts a key; false when the organization has one of that name already. */
  async insert(
    organizationId: string,
    name: string,
    hashedSecret: string,
    tags: Record<string, string>,
  ): Promise<boolean> {
    const inserted = await this.keys
      .createQueryBuilder()
      .insert()
      .values({ organizationId, name, lowerName: name.toLowerCase(), hashedSecret, tags })
      .orIgnore()
      .returning('id')
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  listForOrganization(organizationId: string): Promise<ProvisionerKeyInfo[]> {
    return this.keys.find({
      select: { id: true, organizationId: true, name: true, tags: true, createdAt: true },
      where: { organizationId },
      order: { lowerName: 'ASC' },
    });
  }

  /** Deletes the organization's key of that name (any case); false when there is none. */
  async deleteByName(organizationId: string, name: string): Promise<boolean> {
    const deleted = await this.keys.delete({ organizationId, lowerName: name.toLowerCase() });
    return (deleted.affected ?? 0) > 0;
  }
}

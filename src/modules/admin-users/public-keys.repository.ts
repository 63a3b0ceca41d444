import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PublicKey } from './entities/public-key.entity';

/** SQL on `public_keys` (SSH public keys of users). */
@Injectable()
export class PublicKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get keys() {
    return this.dataSource.getRepository(PublicKey);
  }

  fingerprintUsed(fingerprint: string): Promise<boolean> {
    return this.keys.existsBy({ fingerprint });
  }

  titleUsed(ownerId: string, title: string): Promise<boolean> {
    return this.keys.existsBy({ ownerId, title });
  }

  insert(
    key: Pick<PublicKey, 'ownerId' | 'title' | 'content' | 'fingerprint' | 'algorithm' | 'keySize'>,
  ): Promise<PublicKey> {
    return this.keys.save(this.keys.create(key));
  }

  /** One page of the owner's keys (optionally one fingerprint) by id, and the total. */
  page(
    ownerId: string,
    fingerprint: string | undefined,
    offset: number,
    limit: number,
  ): Promise<[PublicKey[], number]> {
    const where = fingerprint ? { ownerId, fingerprint } : { ownerId };
    return this.keys.findAndCount({ where, order: { id: 'ASC' }, skip: offset, take: limit });
  }

  findById(id: string): Promise<PublicKey | null> {
    return this.keys.findOneBy({ id });
  }

  async delete(id: string): Promise<void> {
    await this.keys.delete({ id });
  }
}

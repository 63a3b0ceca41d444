import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager, In } from 'typeorm';
import { LfsObject, LfsRepositoryObject } from './lfs-object.entity';

/** The `lfs_objects` (content, once per oid) and `lfs_repository_objects` (which repository holds it) tables. */
@Injectable()
export class LfsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The objects of `oids` this repository holds, with their stored content (one query for a batch). */
  async held(repositoryId: string, oids: string[]): Promise<Map<string, LfsObject>> {
    if (oids.length === 0) return new Map();
    const rows = await this.dataSource.manager
      .getRepository(LfsObject)
      .createQueryBuilder('object')
      .innerJoin(
        LfsRepositoryObject,
        'link',
        'link.oid = object.oid AND link.repository_id = :repositoryId',
        {
          repositoryId,
        },
      )
      .where({ oid: In(oids) })
      .getMany();
    return new Map(rows.map((row) => [row.oid, row]));
  }

  /** The stored content of an oid, whichever repository it came through. */
  content(oid: string): Promise<LfsObject | null> {
    return this.dataSource.manager.getRepository(LfsObject).findOneBy({ oid });
  }

  /**
   * Records the content (first upload of the oid wins) and links it to the repository; counts its
   * KiB into the repository's size when the link is new. Answers the content row in effect.
   */
  async store(
    manager: EntityManager,
    repositoryId: string,
    object: { oid: string; size: number; blobKey: string },
  ): Promise<LfsObject> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(LfsObject)
      .values({ oid: object.oid, size: String(object.size), blobKey: object.blobKey })
      .orIgnore()
      .execute();
    const linked = (await manager.query(
      'INSERT INTO lfs_repository_objects (repository_id, oid, size) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING oid',
      [repositoryId, object.oid, String(object.size)],
    )) as { oid: string }[];
    if (linked.length > 0)
      await manager.query('UPDATE repositories SET size_kib = size_kib + $2 WHERE id = $1', [
        repositoryId,
        Math.ceil(object.size / 1024),
      ]);
    return manager.getRepository(LfsObject).findOneByOrFail({ oid: object.oid });
  }

  /** The KiB of the LFS objects a repository holds (each rounded up), added to git's size. */
  async sizeKib(repositoryId: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const [row] = (await manager.query(
      'SELECT COALESCE(SUM((size + 1023) / 1024), 0)::bigint AS kib FROM lfs_repository_objects WHERE repository_id = $1',
      [repositoryId],
    )) as { kib: string }[];
    return Number(row?.kib ?? 0);
  }
}

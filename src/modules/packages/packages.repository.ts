import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ACTIVITY_WRITE } from '../../platform/cache/table-versions';
import { PackageBlob } from './entities/package-blob.entity';
import { PackageFile } from './entities/package-file.entity';
import { PackageVersion } from './entities/package-version.entity';
import { Package } from './entities/package.entity';

/** The digests of a package blob besides SHA-256 (lowercase hex). */
export interface BlobDigests {
  md5: string;
  sha1: string;
  sha512: string;
}

/** The filters of Gitea's package list. */
export interface PackageListQuery {
  type?: string;
  q?: string;
  name?: string;
  offset: number;
  limit: number;
}

/** `LIKE` pattern of a substring search, `\` escaping the pattern characters. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
}

/** The tables of the packages module: packages, package_versions, package_files, package_blobs. */
@Injectable()
export class PackagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  findPackage(ownerId: string, type: string, lowerName: string): Promise<Package | null> {
    return this.manager
      .getRepository(Package)
      .findOne({ where: { ownerId, type, lowerName, isInternal: false } });
  }

  findVersion(packageId: string, lowerVersion: string): Promise<PackageVersion | null> {
    return this.manager.getRepository(PackageVersion).findOne({
      where: { packageId, lowerVersion, isInternal: false },
      relations: { creator: true },
    });
  }

  versionsOf(packageId: string): Promise<PackageVersion[]> {
    return this.manager.getRepository(PackageVersion).find({
      where: { packageId, isInternal: false },
      relations: { creator: true },
      order: { id: 'ASC' },
    });
  }

  /**
   * Every version of a package with its files, in one SQL query without entity hydration (the npm
   * packument is the registry's hottest read: `npm install` asks for one per dependency).
   */
  async versionsWithFiles(packageId: string): Promise<{ version: PackageVersion; files: PackageFile[] }[]> {
    const rows = (await this.manager.query(
      `SELECT v.id, v.version, v.lower_version, v.metadata, v.created_at, v.creator_id, v.download_count,
              f.id AS file_id, f.name AS file_name, f.is_lead, f.created_at AS file_created_at,
              b.id AS blob_id, b.size, b.md5, b.sha1, b.sha256, b.sha512, b.blob_key
         FROM package_versions v
         LEFT JOIN package_files f ON f.version_id = v.id
         LEFT JOIN package_blobs b ON b.id = f.blob_id
        WHERE v.package_id = $1 AND v.is_internal = false
        ORDER BY v.id, f.id`,
      [packageId],
    )) as {
      id: string;
      version: string;
      lower_version: string;
      metadata: Record<string, unknown>;
      created_at: Date;
      creator_id: string | null;
      download_count: string;
      file_id: string | null;
      file_name: string;
      is_lead: boolean;
      file_created_at: Date;
      blob_id: string;
      size: string;
      md5: string | null;
      sha1: string | null;
      sha256: string;
      sha512: string | null;
      blob_key: string;
    }[];
    const out: { version: PackageVersion; files: PackageFile[] }[] = [];
    for (const row of rows) {
      let entry = out[out.length - 1];
      if (!entry || entry.version.id !== row.id) {
        const version = Object.assign(new PackageVersion(), {
          id: row.id,
          packageId,
          version: row.version,
          lowerVersion: row.lower_version,
          metadata: row.metadata,
          createdAt: new Date(row.created_at),
          creatorId: row.creator_id,
          downloadCount: row.download_count,
          isInternal: false,
        });
        entry = { version, files: [] };
        out.push(entry);
      }
      if (row.file_id) {
        const blob = Object.assign(new PackageBlob(), {
          id: row.blob_id,
          size: row.size,
          md5: row.md5,
          sha1: row.sha1,
          sha256: row.sha256,
          sha512: row.sha512,
          blobKey: row.blob_key,
        });
        entry.files.push(
          Object.assign(new PackageFile(), {
            id: row.file_id,
            versionId: row.id,
            blobId: row.blob_id,
            name: row.file_name,
            lowerName: row.file_name.toLowerCase(),
            isLead: row.is_lead,
            createdAt: new Date(row.file_created_at),
            blob,
          }),
        );
      }
    }
    return out;
  }

  /** A file by its path in a registry (owner, type, package name, version, file name), in one query. */
  findFileByPath(
    ownerId: string,
    type: string,
    lowerName: string,
    lowerVersion: string,
    lowerFileName: string,
  ): Promise<PackageFile | null> {
    return this.manager
      .getRepository(PackageFile)
      .createQueryBuilder('file')
      .innerJoinAndSelect('file.blob', 'blob')
      .innerJoinAndSelect('file.version', 'version')
      .innerJoinAndSelect('version.package', 'package')
      .where(
        'package.owner_id = :owner AND package.type = :type AND package.lower_name = :name AND package.is_internal = false',
        { owner: ownerId, type, name: lowerName },
      )
      .andWhere('version.lower_version = :version AND version.is_internal = false', {
        version: lowerVersion,
      })
      .andWhere('file.lower_name = :file', { file: lowerFileName })
      .getOne();
  }

  filesOf(versionId: string): Promise<PackageFile[]> {
    return this.manager.getRepository(PackageFile).find({
      where: { versionId },
      relations: { blob: true },
      order: { id: 'ASC' },
    });
  }

  findFile(versionId: string, lowerName: string): Promise<PackageFile | null> {
    return this.manager.getRepository(PackageFile).findOne({
      where: { versionId, lowerName },
      relations: { blob: true },
    });
  }

  countFiles(versionId: string): Promise<number> {
    return this.manager.getRepository(PackageFile).countBy({ versionId });
  }

  /** Gitea's list: one entry per version, newest first; `type` exact, `q` a name substring. */
  listVersions(ownerId: string, query: PackageListQuery): Promise<[PackageVersion[], number]> {
    const qb = this.manager
      .getRepository(PackageVersion)
      .createQueryBuilder('version')
      .innerJoinAndSelect('version.package', 'package')
      .leftJoinAndSelect('version.creator', 'creator')
      .where('package.owner_id = :owner', { owner: ownerId })
      .andWhere('package.is_internal = false AND version.is_internal = false');
    if (query.type) qb.andWhere('package.type = :type', { type: query.type });
    if (query.q) qb.andWhere("package.lower_name LIKE :q ESCAPE '\\'", { q: containsPattern(query.q) });
    if (query.name !== undefined)
      qb.andWhere('package.lower_name = :name', { name: query.name.toLowerCase() });
    return qb
      .orderBy('version.created_at', 'DESC')
      .addOrderBy('version.id', 'DESC')
      .skip(query.offset)
      .take(query.limit)
      .getManyAndCount();
  }

  /** The version with the highest id. */
  latestVersion(packageId: string): Promise<PackageVersion | null> {
    return this.manager.getRepository(PackageVersion).findOne({
      where: { packageId, isInternal: false },
      relations: { creator: true },
      order: { id: 'DESC' },
    });
  }

  /** The package row (internal ones too), locked for the rest of the transaction. */
  lockPackage(
    manager: EntityManager,
    ownerId: string,
    type: string,
    lowerName: string,
  ): Promise<Package | null> {
    return manager.getRepository(Package).findOne({
      where: { ownerId, type, lowerName },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Creates the package unless a concurrent upload did, then locks it. */
  async createAndLockPackage(
    manager: EntityManager,
    values: { ownerId: string; type: string; name: string; lowerName: string; semverCompatible: boolean },
  ): Promise<Package> {
    const packages = manager.getRepository(Package);
    await packages.createQueryBuilder().insert().into(Package).values(values).orIgnore().execute();
    return packages.findOneOrFail({
      where: { ownerId: values.ownerId, type: values.type, lowerName: values.lowerName },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** A version of the package (internal ones too). */
  findAnyVersion(
    manager: EntityManager,
    packageId: string,
    lowerVersion: string,
  ): Promise<PackageVersion | null> {
    return manager.getRepository(PackageVersion).findOneBy({ packageId, lowerVersion });
  }

  createVersion(
    manager: EntityManager,
    values: {
      packageId: string;
      creatorId: string;
      version: string;
      lowerVersion: string;
      metadata: Record<string, unknown>;
    },
  ): Promise<PackageVersion> {
    const versions = manager.getRepository(PackageVersion);
    return versions.save(versions.create(values));
  }

  fileExists(manager: EntityManager, versionId: string, lowerName: string): Promise<boolean> {
    return manager.getRepository(PackageFile).existsBy({ versionId, lowerName });
  }

  createFile(
    manager: EntityManager,
    values: { versionId: string; blobId: string; name: string; lowerName: string; isLead: boolean },
  ): Promise<PackageFile> {
    const files = manager.getRepository(PackageFile);
    return files.save(files.create(values));
  }

  async setDistTags(
    packageId: string,
    distTags: Record<string, string>,
    manager = this.manager,
  ): Promise<void> {
    await manager.getRepository(Package).update({ id: packageId }, { distTags });
  }

  /** A version's files with their blobs (the deleting transaction). */
  filesWithBlobs(manager: EntityManager, versionId: string): Promise<PackageFile[]> {
    return manager.getRepository(PackageFile).find({ where: { versionId }, relations: { blob: true } });
  }

  /** Every version of a package (internal ones too). */
  allVersionsOf(manager: EntityManager, packageId: string): Promise<PackageVersion[]> {
    return manager.getRepository(PackageVersion).findBy({ packageId });
  }

  async deleteVersion(manager: EntityManager, versionId: string): Promise<void> {
    await manager.getRepository(PackageVersion).delete({ id: versionId });
  }

  hasVersions(manager: EntityManager, packageId: string): Promise<boolean> {
    return manager.getRepository(PackageVersion).existsBy({ packageId });
  }

  async deletePackage(manager: EntityManager, packageId: string): Promise<void> {
    await manager.getRepository(Package).delete({ id: packageId });
  }

  async deleteFile(manager: EntityManager, fileId: string): Promise<void> {
    await manager.getRepository(PackageFile).delete({ id: fileId });
  }

  async updateVersionMetadata(versionId: string, metadata: Record<string, unknown>): Promise<void> {
    await this.manager
      .getRepository(PackageVersion)
      .createQueryBuilder()
      .update(PackageVersion)
      .set({ metadata: () => ':metadata::jsonb' })
      .setParameter('metadata', JSON.stringify(metadata))
      .where('id = :id', { id: versionId })
      .execute();
  }

  async setRepository(packageId: string, repositoryId: string | null): Promise<void> {
    await this.manager.getRepository(Package).update({ id: packageId }, { repositoryId });
  }

  /** A deleted repository leaves its packages unlinked. */
  async unlinkRepository(repositoryId: string): Promise<void> {
    await this.manager.getRepository(Package).update({ repositoryId }, { repositoryId: null });
  }

  /** npm search: packages of the type, of the given owners, whose name contains `text`. */
  search(
    type: string,
    text: string,
    ownerIds: string[],
    limit: number,
    offset: number,
  ): Promise<[Package[], number]> {
    return this.manager
      .getRepository(Package)
      .createQueryBuilder('package')
      .innerJoinAndSelect('package.owner', 'owner')
      .where('package.type = :type AND package.is_internal = false', { type })
      .andWhere('package.owner_id IN (:...ownerIds)', { ownerIds })
      .andWhere("package.lower_name LIKE :text ESCAPE '\\'", { text: containsPattern(text) })
      .orderBy('package.lower_name', 'ASC')
      .skip(offset)
      .take(limit)
      .getManyAndCount();
  }

  countOwnedBy(ownerId: string, manager: EntityManager = this.manager): Promise<number> {
    return manager.getRepository(Package).countBy({ ownerId, isInternal: false });
  }

  /** Every package of an owner (internal ones too) with its owner. */
  ownedBy(manager: EntityManager, ownerId: string): Promise<Package[]> {
    return manager.getRepository(Package).find({ where: { ownerId }, relations: { owner: true } });
  }

  /** Adds gathered download counts (an activity write: the registry's cached documents stay). */
  async addDownloads(versionIds: string[], counts: number[]): Promise<void> {
    await this.manager.query(
      `${ACTIVITY_WRITE} UPDATE package_versions v SET download_count = v.download_count + d.n
         FROM unnest($1::bigint[], $2::int[]) AS d(id, n) WHERE v.id = d.id`,
      [versionIds, counts],
    );
  }

  /** The blob row, locked (its collection job). */
  lockBlob(manager: EntityManager, blobId: string): Promise<PackageBlob | null> {
    return manager
      .getRepository(PackageBlob)
      .findOne({ where: { id: blobId }, lock: { mode: 'pessimistic_write' } });
  }

  blobInUse(manager: EntityManager, blobId: string): Promise<boolean> {
    return manager.getRepository(PackageFile).existsBy({ blobId });
  }

  async deleteBlob(manager: EntityManager, blobId: string): Promise<void> {
    await manager.getRepository(PackageBlob).delete({ id: blobId });
  }

  blobKeyExists(blobKey: string): Promise<boolean> {
    return this.manager.getRepository(PackageBlob).existsBy({ blobKey });
  }

  /** The blob of this content (SHA-256 and size): the dedup lookup of an upload. */
  findBlobByContent(
    sha256: string,
    size: string,
    manager: EntityManager = this.manager,
  ): Promise<PackageBlob | null> {
    return manager.getRepository(PackageBlob).findOneBy({ sha256, size });
  }

  findBlob(blobId: string, manager: EntityManager = this.manager): Promise<PackageBlob | null> {
    return manager.getRepository(PackageBlob).findOneBy({ id: blobId });
  }

  /**
   * Fills in the digests computed after the upload. Only missing ones are written (a digest once
   * stored never changes), so concurrent fillers of the same blob agree.
   */
  async fillBlobDigests(
    blobId: string,
    digests: BlobDigests,
    manager: EntityManager = this.manager,
  ): Promise<void> {
    await manager.query(
      `UPDATE package_blobs
          SET md5 = COALESCE(md5, $2), sha1 = COALESCE(sha1, $3), sha512 = COALESCE(sha512, $4)
        WHERE id = $1 AND (md5 IS NULL OR sha1 IS NULL OR sha512 IS NULL)`,
      [blobId, digests.md5, digests.sha1, digests.sha512],
    );
  }

  createBlob(
    manager: EntityManager,
    values: {
      size: string;
      blobKey: string;
      sha256: string;
      md5: string | null;
      sha1: string | null;
      sha512: string | null;
    },
  ): Promise<PackageBlob> {
    const blobs = manager.getRepository(PackageBlob);
    return blobs.save(blobs.create(values));
  }
}

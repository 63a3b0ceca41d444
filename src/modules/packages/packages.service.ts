import { Inject, Injectable, Optional } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import type { Readable } from 'node:stream';
import { type EntityManager, Repository as OrmRepository } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
} from '../../platform/errors/domain-error';
import type { PackageEventPayload, RequestSnapshot } from '../../platform/events/subject-events';
import { UploadPolicy } from '../../platform/uploads/upload-policy';
import type { User } from '../identity/entities/user.entity';
import { OrganizationsService } from '../identity/organizations.service';
import type { LinkedRepository } from '../../platform/ports/repository-links';
import { PackageBlob } from './entities/package-blob.entity';
import { PackageFile } from './entities/package-file.entity';
import { PackageVersion } from './entities/package-version.entity';
import { Package } from './entities/package.entity';
import { PackageBlobsService } from './package-blobs.service';
import { PackageDownloadsService } from './package-downloads.service';

/** The package types of spec 3 (the `type` filter and the registries). */
export const PACKAGE_TYPES = [
  'alpine',
  'cargo',
  'chef',
  'composer',
  'conan',
  'conda',
  'container',
  'cran',
  'debian',
  'generic',
  'go',
  'helm',
  'maven',
  'npm',
  'nuget',
  'pub',
  'pypi',
  'rpm',
  'rubygems',
  'swift',
  'terraform',
  'vagrant',
] as const;

export function packageNotFound(): NotFoundError {
  return new NotFoundError('package does not exist', { code: 'PACKAGE_NOT_FOUND' });
}

export interface AddFileInput {
  owner: User;
  creator: User;
  type: string;
  name: string;
  version: string;
  fileName: string;
  body: Readable;
  maxBytes?: number;
  contentType?: string;
  isLead?: boolean;
  semverCompatible?: boolean;
  /** The version must be new (npm publish); otherwise a file may join an existing version (generic). */
  newVersionOnly?: boolean;
  metadata?: Record<string, unknown>;
  /** Applied to the package row in the same transaction (npm dist-tags). */
  distTags?: Record<string, string>;
  request: RequestSnapshot | null;
}

export interface VersionView {
  version: PackageVersion;
  package: Package;
}

/**
 * Packages, versions and files of every registry (Gitea's models/packages): one transaction writes a
 * version and its file rows (the bytes are stored first, deduplicated; a failure leaves a blob that
 * the collector removes); deletions queue the blob collection in their transaction. Uploads pass the
 * workflow engine's access check first; `file.*` and `package.*` events fire after commit.
 */
@Injectable()
export class PackagesService {
  constructor(
    @InjectRepository(Package) private readonly packages: OrmRepository<Package>,
    @InjectRepository(PackageVersion) private readonly versions: OrmRepository<PackageVersion>,
    @InjectRepository(PackageFile) private readonly files: OrmRepository<PackageFile>,
    private readonly blobs: PackageBlobsService,
    private readonly transactions: TransactionRunner,
    private readonly organizations: OrganizationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly downloads: PackageDownloadsService,
    @Optional() private readonly policy?: UploadPolicy,
  ) {}

  get publicUrl(): string {
    return this.config.publicUrl;
  }

  async ownerUserIds(owner: User): Promise<string[]> {
    return owner.type === 'organization' ? this.organizations.ownerIdsOf(owner.id) : [owner.id];
  }

  async findPackage(owner: User, type: string, name: string): Promise<Package | null> {
    // The owner is known: no join to load it again.
    const found = await this.packages.findOne({
      where: { ownerId: owner.id, type, lowerName: name.toLowerCase(), isInternal: false },
    });
    if (found) found.owner = owner;
    return found;
  }

  async requirePackage(owner: User, type: string, name: string): Promise<Package> {
    const found = await this.findPackage(owner, type, name);
    if (!found) throw packageNotFound();
    return found;
  }

  findVersion(pkg: Package, version: string): Promise<PackageVersion | null> {
    return this.versions.findOne({
      where: { packageId: pkg.id, lowerVersion: version.toLowerCase(), isInternal: false },
      relations: { creator: true },
    });
  }

  async requireVersion(pkg: Package, version: string): Promise<PackageVersion> {
    const found = await this.findVersion(pkg, version);
    if (!found)
      throw new NotFoundError('GetVersionByNameAndVersion: package does not exist', {
        code: 'PACKAGE_VERSION_NOT_FOUND',
      });
    return found;
  }

  versionsOf(pkg: Package): Promise<PackageVersion[]> {
    return this.versions.find({
      where: { packageId: pkg.id, isInternal: false },
      relations: { creator: true },
      order: { id: 'ASC' },
    });
  }

  /**
   * Every version of a package with its files, in one SQL query without entity hydration (the npm
   * packument is the registry's hottest read: `npm install` asks for one per dependency).
   */
  async versionsWithFiles(pkg: Package): Promise<{ version: PackageVersion; files: PackageFile[] }[]> {
    const rows = (await this.versions.manager.query(
      `SELECT v.id, v.version, v.lower_version, v.metadata, v.created_at, v.creator_id, v.download_count,
              f.id AS file_id, f.name AS file_name, f.is_lead, f.created_at AS file_created_at,
              b.id AS blob_id, b.size, b.md5, b.sha1, b.sha256, b.sha512, b.blob_key
         FROM package_versions v
         LEFT JOIN package_files f ON f.version_id = v.id
         LEFT JOIN package_blobs b ON b.id = f.blob_id
        WHERE v.package_id = $1 AND v.is_internal = false
        ORDER BY v.id, f.id`,
      [pkg.id],
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
      md5: string;
      sha1: string;
      sha256: string;
      sha512: string;
      blob_key: string;
    }[];
    const out: { version: PackageVersion; files: PackageFile[] }[] = [];
    for (const row of rows) {
      let entry = out[out.length - 1];
      if (!entry || entry.version.id !== row.id) {
        const version = Object.assign(new PackageVersion(), {
          id: row.id,
          packageId: pkg.id,
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
  async findFileByPath(
    owner: User,
    type: string,
    name: string,
    version: string,
    fileName: string,
  ): Promise<PackageFile | null> {
    return this.files
      .createQueryBuilder('file')
      .innerJoinAndSelect('file.blob', 'blob')
      .innerJoinAndSelect('file.version', 'version')
      .innerJoinAndSelect('version.package', 'package')
      .where(
        'package.owner_id = :owner AND package.type = :type AND package.lower_name = :name AND package.is_internal = false',
        { owner: owner.id, type, name: name.toLowerCase() },
      )
      .andWhere('version.lower_version = :version AND version.is_internal = false', {
        version: version.toLowerCase(),
      })
      .andWhere('file.lower_name = :file', { file: fileName.toLowerCase() })
      .getOne();
  }

  filesOf(version: PackageVersion): Promise<PackageFile[]> {
    return this.files.find({
      where: { versionId: version.id },
      relations: { blob: true },
      order: { id: 'ASC' },
    });
  }

  async findFile(version: PackageVersion, name: string): Promise<PackageFile | null> {
    return this.files.findOne({
      where: { versionId: version.id, lowerName: name.toLowerCase() },
      relations: { blob: true },
    });
  }

  /** Gitea's list: one entry per version, newest first; `type` exact, `q` a name substring. */
  async list(
    owner: User,
    query: { type?: string; q?: string; name?: string; offset: number; limit: number },
  ): Promise<{ items: VersionView[]; total: number }> {
    const qb = this.versions
      .createQueryBuilder('version')
      .innerJoinAndSelect('version.package', 'package')
      .leftJoinAndSelect('version.creator', 'creator')
      .where('package.owner_id = :owner', { owner: owner.id })
      .andWhere('package.is_internal = false AND version.is_internal = false');
    if (query.type) qb.andWhere('package.type = :type', { type: query.type });
    if (query.q)
      qb.andWhere("package.lower_name LIKE :q ESCAPE '\\'", {
        q: `%${query.q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`,
      });
    if (query.name !== undefined)
      qb.andWhere('package.lower_name = :name', { name: query.name.toLowerCase() });
    const [rows, total] = await qb
      .orderBy('version.created_at', 'DESC')
      .addOrderBy('version.id', 'DESC')
      .skip(query.offset)
      .take(query.limit)
      .getManyAndCount();
    for (const row of rows) row.package.owner = owner;
    return { items: rows.map((version) => ({ version, package: version.package })), total };
  }

  /** `-/latest`: the version with the highest id. */
  async latest(pkg: Package): Promise<PackageVersion> {
    const found = await this.versions.findOne({
      where: { packageId: pkg.id, isInternal: false },
      relations: { creator: true },
      order: { id: 'DESC' },
    });
    if (!found) throw packageNotFound();
    return found;
  }

  private packageEvent(
    pkg: Package,
    owner: User,
    version: string,
    actor: User | null,
    request: RequestSnapshot | null,
    ownerUserIds: string[],
  ): PackageEventPayload {
    return {
      actorUserId: actor?.id ?? null,
      ownerUserIds,
      request,
      packageId: pkg.id,
      ownerName: owner.name,
      type: pkg.type,
      name: pkg.name,
      version,
    };
  }

  /**
   * Stores one file of a version (creating the package and version when new). The access check runs
   * before a byte is stored; the file, version and package rows commit together.
   */
  async addFile(
    input: AddFileInput,
  ): Promise<{ package: Package; version: PackageVersion; file: PackageFile; createdVersion: boolean }> {
    if (this.policy) {
      await this.policy.assertFileAllowed({
        name: input.fileName,
        mimeType: input.contentType ?? null,
        size: input.request?.declaredSize ?? null,
        actorUserId: input.creator.id,
        request: input.request,
      });
    }
    const existing = await this.findPackage(input.owner, input.type, input.name);
    const existingVersion = existing ? await this.findVersion(existing, input.version) : null;
    if (existingVersion && input.newVersionOnly)
      throw new BadRequestError('package version already exists', { code: 'PACKAGE_VERSION_EXISTS' });
    if (existingVersion && (await this.findFile(existingVersion, input.fileName)))
      throw new ConflictError('package file already exists', { code: 'PACKAGE_FILE_EXISTS' });
    const blob = await this.blobs.store(input.body, {
      maxBytes: input.maxBytes,
      contentType: input.contentType,
    });
    const ownerUserIds = await this.ownerUserIds(input.owner);
    return this.transactions.run(async (tx) => {
      const packages = tx.manager.getRepository(Package);
      let pkg = await packages.findOne({
        where: { ownerId: input.owner.id, type: input.type, lowerName: input.name.toLowerCase() },
        lock: { mode: 'pessimistic_write' },
      });
      if (!pkg) {
        await packages
          .createQueryBuilder()
          .insert()
          .into(Package)
          .values({
            ownerId: input.owner.id,
            type: input.type,
            name: input.name,
            lowerName: input.name.toLowerCase(),
            semverCompatible: input.semverCompatible ?? false,
          })
          .orIgnore()
          .execute();
        pkg = await packages.findOneOrFail({
          where: { ownerId: input.owner.id, type: input.type, lowerName: input.name.toLowerCase() },
          lock: { mode: 'pessimistic_write' },
        });
      }
      pkg.owner = input.owner;
      const versions = tx.manager.getRepository(PackageVersion);
      let version = await versions.findOneBy({
        packageId: pkg.id,
        lowerVersion: input.version.toLowerCase(),
      });
      const createdVersion = !version;
      if (version && input.newVersionOnly)
        throw new BadRequestError('package version already exists', { code: 'PACKAGE_VERSION_EXISTS' });
      if (!version) {
        version = await versions.save(
          versions.create({
            packageId: pkg.id,
            creatorId: input.creator.id,
            version: input.version,
            lowerVersion: input.version.toLowerCase(),
            metadata: input.metadata ?? {},
          }),
        );
      }
      const files = tx.manager.getRepository(PackageFile);
      if (await files.existsBy({ versionId: version.id, lowerName: input.fileName.toLowerCase() }))
        throw new ConflictError('package file already exists', { code: 'PACKAGE_FILE_EXISTS' });
      const file = await files.save(
        files.create({
          versionId: version.id,
          blobId: blob.id,
          name: input.fileName,
          lowerName: input.fileName.toLowerCase(),
          isLead: input.isLead ?? false,
        }),
      );
      file.blob = blob;
      if (input.distTags) {
        pkg.distTags = { ...pkg.distTags, ...input.distTags };
        await packages.update({ id: pkg.id }, { distTags: pkg.distTags });
      }
      tx.emit('file.created', {
        actorUserId: input.creator.id,
        ownerUserIds,
        request: input.request,
        fileId: file.id,
        kind: 'package_file',
        name: file.name,
        size: Number(blob.size),
        mimeType: input.contentType ?? null,
        packageId: pkg.id,
        packageRef: `${input.owner.name}/${pkg.type}/${pkg.name}@${version.version}`,
      });
      if (createdVersion)
        tx.emit(
          'package.published',
          this.packageEvent(pkg, input.owner, version.version, input.creator, input.request, ownerUserIds),
        );
      return { package: pkg, version, file, createdVersion };
    });
  }

  /** Deletes a version with its files; the package goes with its last version. */
  async deleteVersion(
    pkg: Package,
    version: PackageVersion,
    actor: User | null,
    request: RequestSnapshot | null,
    outer?: Transaction,
  ): Promise<void> {
    const ownerUserIds = await this.ownerUserIds(pkg.owner);
    const work = async (tx: Transaction) => {
      const files = await tx.manager
        .getRepository(PackageFile)
        .find({ where: { versionId: version.id }, relations: { blob: true } });
      await tx.manager.getRepository(PackageVersion).delete({ id: version.id });
      await this.blobs.collectLater(
        tx.manager,
        files.map((file) => file.blobId),
      );
      if (!(await tx.manager.getRepository(PackageVersion).existsBy({ packageId: pkg.id })))
        await tx.manager.getRepository(Package).delete({ id: pkg.id });
      for (const file of files) {
        tx.emit('file.deleted', {
          actorUserId: actor?.id ?? null,
          ownerUserIds,
          request,
          fileId: file.id,
          kind: 'package_file',
          name: file.name,
          size: Number(file.blob.size),
          mimeType: null,
          packageId: pkg.id,
          packageRef: `${pkg.owner.name}/${pkg.type}/${pkg.name}@${version.version}`,
        });
      }
      tx.emit(
        'package.deleted',
        this.packageEvent(pkg, pkg.owner, version.version, actor, request, ownerUserIds),
      );
    };
    if (outer) await work(outer);
    else await this.transactions.run(work);
  }

  async deletePackage(pkg: Package, actor: User | null, request: RequestSnapshot | null): Promise<void> {
    await this.transactions.run(async (tx) => {
      for (const version of await tx.manager.getRepository(PackageVersion).findBy({ packageId: pkg.id }))
        await this.deleteVersion(pkg, version, actor, request, tx);
      await tx.manager.getRepository(Package).delete({ id: pkg.id });
    });
  }

  /** Deletes one file; the version goes with its last file. */
  async deleteFile(
    pkg: Package,
    version: PackageVersion,
    file: PackageFile,
    actor: User | null,
    request: RequestSnapshot | null,
  ): Promise<void> {
    const remaining = await this.files.countBy({ versionId: version.id });
    if (remaining <= 1) return this.deleteVersion(pkg, version, actor, request);
    const ownerUserIds = await this.ownerUserIds(pkg.owner);
    await this.transactions.run(async (tx) => {
      await tx.manager.getRepository(PackageFile).delete({ id: file.id });
      await this.blobs.collectLater(tx.manager, [file.blobId]);
      tx.emit('file.deleted', {
        actorUserId: actor?.id ?? null,
        ownerUserIds,
        request,
        fileId: file.id,
        kind: 'package_file',
        name: file.name,
        size: Number(file.blob.size),
        mimeType: null,
        packageId: pkg.id,
        packageRef: `${pkg.owner.name}/${pkg.type}/${pkg.name}@${version.version}`,
      });
    });
  }

  /** Counts a download (written in batches: PackageDownloadsService). */
  recordDownload(version: PackageVersion): void {
    this.downloads.record(version.id);
  }

  async setDistTags(pkg: Package, tags: Record<string, string | null>): Promise<Record<string, string>> {
    const next = { ...pkg.distTags };
    for (const [tag, version] of Object.entries(tags)) {
      if (version === null) delete next[tag];
      else next[tag] = version;
    }
    await this.packages.update({ id: pkg.id }, { distTags: next });
    pkg.distTags = next;
    return next;
  }

  async updateVersionMetadata(version: PackageVersion, metadata: Record<string, unknown>): Promise<void> {
    await this.versions
      .createQueryBuilder()
      .update(PackageVersion)
      .set({ metadata: () => ':metadata::jsonb' })
      .setParameter('metadata', JSON.stringify(metadata))
      .where('id = :id', { id: version.id })
      .execute();
    version.metadata = metadata;
  }

  async link(pkg: Package, repo: LinkedRepository): Promise<void> {
    if (pkg.repositoryId)
      throw new BadRequestError('package is already linked to a repository', { code: 'PACKAGE_LINKED' });
    if (repo.ownerId !== pkg.ownerId)
      throw new ForbiddenError('package and repository do not have the same owner', 'permission', {
        code: 'PACKAGE_OWNER_MISMATCH',
      });
    await this.packages.update({ id: pkg.id }, { repositoryId: repo.id });
  }

  /** A deleted repository leaves its packages unlinked. */
  @OnEvent('repository.deleted')
  async onRepositoryDeleted(event: { repositoryId: string }): Promise<void> {
    await this.packages.update({ repositoryId: event.repositoryId }, { repositoryId: null });
  }

  async unlink(pkg: Package): Promise<void> {
    if (!pkg.repositoryId)
      throw new BadRequestError('package is not linked to a repository', { code: 'PACKAGE_NOT_LINKED' });
    await this.packages.update({ id: pkg.id }, { repositoryId: null });
  }

  /** npm search: packages of the type, of the given owners, whose name contains `text`. */
  async search(
    type: string,
    text: string,
    ownerIds: string[],
    limit: number,
    offset: number,
  ): Promise<{ items: Package[]; total: number }> {
    if (ownerIds.length === 0) return { items: [], total: 0 };
    const [items, total] = await this.packages
      .createQueryBuilder('package')
      .innerJoinAndSelect('package.owner', 'owner')
      .where('package.type = :type AND package.is_internal = false', { type })
      .andWhere('package.owner_id IN (:...ownerIds)', { ownerIds })
      .andWhere("package.lower_name LIKE :text ESCAPE '\\'", {
        text: `%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`,
      })
      .orderBy('package.lower_name', 'ASC')
      .skip(offset)
      .take(limit)
      .getManyAndCount();
    return { items, total };
  }

  /** For account deletion: packages an owner has. */
  countOwnedBy(ownerId: string, manager: EntityManager = this.packages.manager): Promise<number> {
    return manager.getRepository(Package).countBy({ ownerId, isInternal: false });
  }

  async purgeOwnedBy(ownerId: string, tx: Transaction): Promise<void> {
    for (const pkg of await tx.manager
      .getRepository(Package)
      .find({ where: { ownerId }, relations: { owner: true } })) {
      for (const version of await tx.manager.getRepository(PackageVersion).findBy({ packageId: pkg.id }))
        await this.deleteVersion(pkg, version, null, null, tx);
      await tx.manager.getRepository(Package).delete({ id: pkg.id });
    }
  }
}

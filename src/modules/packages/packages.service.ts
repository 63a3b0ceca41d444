import { OnDomainEvent } from '../../platform/events/event-bus.service';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
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
import type { PackageFile } from './entities/package-file.entity';
import type { PackageVersion } from './entities/package-version.entity';
import type { Package } from './entities/package.entity';
import { PackageBlobsService } from './package-blobs.service';
import { PackageDownloadsService } from './package-downloads.service';
import { type BlobDigests, PackagesRepository } from './packages.repository';

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
  /** The body's declared length (a raw upload's Content-Length), passed to the blob store. */
  expectedSize?: number;
  /** MD5, SHA-1 and SHA-512 of the body when the caller has them (npm publish): the blob needs no digest job. */
  digests?: BlobDigests;
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
    private readonly rows: PackagesRepository,
    private readonly blobs: PackageBlobsService,
    private readonly transactions: TransactionRunner,
    private readonly organizations: OrganizationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly downloads: PackageDownloadsService,
    private readonly metrics: MetricsService,
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
    const found = await this.rows.findPackage(owner.id, type, name.toLowerCase());
    if (found) found.owner = owner;
    return found;
  }

  async requirePackage(owner: User, type: string, name: string): Promise<Package> {
    const found = await this.findPackage(owner, type, name);
    if (!found) throw packageNotFound();
    return found;
  }

  findVersion(pkg: Package, version: string): Promise<PackageVersion | null> {
    return this.rows.findVersion(pkg.id, version.toLowerCase());
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
    return this.rows.versionsOf(pkg.id);
  }

  /**
   * Every version of a package with its files, in one SQL query without entity hydration (the npm
   * packument is the registry's hottest read: `npm install` asks for one per dependency).
   */
  /** Every version with its files, every blob with all four digests (missing ones computed now). */
  async versionsWithFiles(pkg: Package): Promise<{ version: PackageVersion; files: PackageFile[] }[]> {
    const versions = await this.rows.versionsWithFiles(pkg.id);
    await this.blobs.completeDigests(versions.flatMap((v) => v.files.map((f) => f.blob)));
    return versions;
  }

  /** A file by its path in a registry (owner, type, package name, version, file name), in one query. */
  async findFileByPath(
    owner: User,
    type: string,
    name: string,
    version: string,
    fileName: string,
  ): Promise<PackageFile | null> {
    return this.rows.findFileByPath(
      owner.id,
      type,
      name.toLowerCase(),
      version.toLowerCase(),
      fileName.toLowerCase(),
    );
  }

  /** The files of a version, every blob with all four digests (missing ones computed now). */
  async filesOf(version: PackageVersion): Promise<PackageFile[]> {
    const files = await this.rows.filesOf(version.id);
    await this.blobs.completeDigests(files.map((f) => f.blob));
    return files;
  }

  async findFile(version: PackageVersion, name: string): Promise<PackageFile | null> {
    return this.rows.findFile(version.id, name.toLowerCase());
  }

  /** Gitea's list: one entry per version, newest first; `type` exact, `q` a name substring. */
  async list(
    owner: User,
    query: { type?: string; q?: string; name?: string; offset: number; limit: number },
  ): Promise<{ items: VersionView[]; total: number }> {
    const [found, total] = await this.rows.listVersions(owner.id, query);
    for (const row of found) row.package.owner = owner;
    return { items: found.map((version) => ({ version, package: version.package })), total };
  }

  /** `-/latest`: the version with the highest id. */
  async latest(pkg: Package): Promise<PackageVersion> {
    const found = await this.rows.latestVersion(pkg.id);
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
      expectedSize: input.expectedSize,
      digests: input.digests,
    });
    const ownerUserIds = await this.ownerUserIds(input.owner);
    return this.transactions.run(async (tx) => {
      const lowerName = input.name.toLowerCase();
      let pkg = await this.rows.lockPackage(tx.manager, input.owner.id, input.type, lowerName);
      if (!pkg) {
        pkg = await this.rows.createAndLockPackage(tx.manager, {
          ownerId: input.owner.id,
          type: input.type,
          name: input.name,
          lowerName,
          semverCompatible: input.semverCompatible ?? false,
        });
      }
      pkg.owner = input.owner;
      let version = await this.rows.findAnyVersion(tx.manager, pkg.id, input.version.toLowerCase());
      const createdVersion = !version;
      if (version && input.newVersionOnly)
        throw new BadRequestError('package version already exists', { code: 'PACKAGE_VERSION_EXISTS' });
      if (!version) {
        version = await this.rows.createVersion(tx.manager, {
          packageId: pkg.id,
          creatorId: input.creator.id,
          version: input.version,
          lowerVersion: input.version.toLowerCase(),
          metadata: input.metadata ?? {},
        });
      }
      if (await this.rows.fileExists(tx.manager, version.id, input.fileName.toLowerCase()))
        throw new ConflictError('package file already exists', { code: 'PACKAGE_FILE_EXISTS' });
      const file = await this.rows.createFile(tx.manager, {
        versionId: version.id,
        blobId: blob.id,
        name: input.fileName,
        lowerName: input.fileName.toLowerCase(),
        isLead: input.isLead ?? false,
      });
      file.blob = blob;
      if (input.distTags) {
        pkg.distTags = { ...pkg.distTags, ...input.distTags };
        await this.rows.setDistTags(pkg.id, pkg.distTags, tx.manager);
      }
      tx.emitDurable('file.created', {
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
        tx.emitDurable(
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
      const files = await this.rows.filesWithBlobs(tx.manager, version.id);
      await this.rows.deleteVersion(tx.manager, version.id);
      await this.blobs.collectLater(
        tx.manager,
        files.map((file) => file.blobId),
      );
      if (!(await this.rows.hasVersions(tx.manager, pkg.id)))
        await this.rows.deletePackage(tx.manager, pkg.id);
      for (const file of files) {
        tx.emitDurable('file.deleted', {
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
      tx.emitDurable(
        'package.deleted',
        this.packageEvent(pkg, pkg.owner, version.version, actor, request, ownerUserIds),
      );
    };
    if (outer) await work(outer);
    else await this.transactions.run(work);
  }

  async deletePackage(pkg: Package, actor: User | null, request: RequestSnapshot | null): Promise<void> {
    await this.transactions.run(async (tx) => {
      for (const version of await this.rows.allVersionsOf(tx.manager, pkg.id))
        await this.deleteVersion(pkg, version, actor, request, tx);
      await this.rows.deletePackage(tx.manager, pkg.id);
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
    const remaining = await this.rows.countFiles(version.id);
    if (remaining <= 1) return this.deleteVersion(pkg, version, actor, request);
    const ownerUserIds = await this.ownerUserIds(pkg.owner);
    await this.transactions.run(async (tx) => {
      await this.rows.deleteFile(tx.manager, file.id);
      await this.blobs.collectLater(tx.manager, [file.blobId]);
      tx.emitDurable('file.deleted', {
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
  recordDownload(version: PackageVersion, type: string): void {
    this.downloads.record(version.id);
    this.metrics.packageOperation('download', type);
  }

  async setDistTags(pkg: Package, tags: Record<string, string | null>): Promise<Record<string, string>> {
    const next = { ...pkg.distTags };
    for (const [tag, version] of Object.entries(tags)) {
      if (version === null) delete next[tag];
      else next[tag] = version;
    }
    await this.rows.setDistTags(pkg.id, next);
    pkg.distTags = next;
    return next;
  }

  async updateVersionMetadata(version: PackageVersion, metadata: Record<string, unknown>): Promise<void> {
    await this.rows.updateVersionMetadata(version.id, metadata);
    version.metadata = metadata;
  }

  async link(pkg: Package, repo: LinkedRepository): Promise<void> {
    if (pkg.repositoryId)
      throw new BadRequestError('package is already linked to a repository', { code: 'PACKAGE_LINKED' });
    if (repo.ownerId !== pkg.ownerId)
      throw new ForbiddenError('package and repository do not have the same owner', 'permission', {
        code: 'PACKAGE_OWNER_MISMATCH',
      });
    await this.rows.setRepository(pkg.id, repo.id);
  }

  /** A deleted repository leaves its packages unlinked. */
  @OnDomainEvent('repository.deleted')
  async onRepositoryDeleted(event: { repositoryId: string }): Promise<void> {
    await this.rows.unlinkRepository(event.repositoryId);
  }

  async unlink(pkg: Package): Promise<void> {
    if (!pkg.repositoryId)
      throw new BadRequestError('package is not linked to a repository', { code: 'PACKAGE_NOT_LINKED' });
    await this.rows.setRepository(pkg.id, null);
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
    const [items, total] = await this.rows.search(type, text, ownerIds, limit, offset);
    return { items, total };
  }

  /** For account deletion: packages an owner has. */
  countOwnedBy(ownerId: string, manager?: EntityManager): Promise<number> {
    return this.rows.countOwnedBy(ownerId, manager);
  }

  async purgeOwnedBy(ownerId: string, tx: Transaction): Promise<void> {
    for (const pkg of await this.rows.ownedBy(tx.manager, ownerId)) {
      for (const version of await this.rows.allVersionsOf(tx.manager, pkg.id))
        await this.deleteVersion(pkg, version, null, null, tx);
      await this.rows.deletePackage(tx.manager, pkg.id);
    }
  }
}

import { VersionedCache, type VersionedCacheOptions } from '../../../platform/cache/versioned-cache';
import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { weakEtag } from '../../../platform/http/weak-etag';
import { Readable } from 'node:stream';
import semver from 'semver';
import { BadRequestError, type DomainErrorCode } from '../../../platform/errors/domain-error';
import type { RequestSnapshot } from '../../../platform/events/subject-events';
import type { User } from '../../identity/entities/user.entity';
import type { PackageVersion } from '../entities/package-version.entity';
import type { Package } from '../entities/package.entity';
import { PackagesService } from '../packages.service';
import { publishedDistTags, resolveDistTags, withDeprecation } from './npm-metadata';

/** A document as sent: its JSON text and the ETag of that text. */
export interface SerializedDocument {
  body: string;
  etag: string;
}

/**
 * The terms of the packument caches (version documents and serialised packuments): any write to these
 * tables drops every entry at once (and is announced to other instances: the TableWriteTracker's
 * ClusterBus message); the TTL only bounds a missed announcement, and a short one made entries expire in
 * the middle of an install. Publish, unpublish, dist-tag and deprecate all write these tables.
 * Not `users` (issue 52.5): the only account data in a packument is the owner's name in the tarball URLs,
 * which is part of the key (a rename reads under a new key), and a deleted owner or package is refused
 * before the cache is asked (its entries are unreachable until they expire). With `users` watched,
 * every account edit on the site (a profile change, a rule run) emptied every cached packument.
 */
const PACKUMENT_CACHE: VersionedCacheOptions = {
  tables: ['packages', 'package_versions', 'package_files', 'package_blobs'],
  ttlMs: 300_000,
  maxEntries: 5_000,
};

/** Gitea's npm name rule (scoped or not, lower case). */
const NAME = /^(@[a-z0-9-][a-z0-9-._]*\/)?[a-z0-9-][a-z0-9-._]*$/;

/** Fields of a version manifest kept in the abbreviated ("corgi") packument npm installs from. */
const ABBREVIATED_FIELDS = [
  'name',
  'version',
  'deprecated',
  'dependencies',
  'optionalDependencies',
  'devDependencies',
  'bundleDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'acceptDependencies',
  'bin',
  'directories',
  'engines',
  'os',
  'cpu',
  '_hasShrinkwrap',
  'hasInstallScript',
  'funding',
  'license',
] as const;

export interface PublishDocument {
  name?: unknown;
  description?: unknown;
  'dist-tags'?: unknown;
  versions?: unknown;
  _attachments?: unknown;
  readme?: unknown;
}

export function isValidNpmName(name: string): boolean {
  return name.length <= 214 && NAME.test(name);
}

function invalid(message: string, code: DomainErrorCode): BadRequestError {
  return new BadRequestError(message, { code });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The file name of a version's tarball (`name-1.0.0.tgz`, without the scope). */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@[^/]+\//, '')}-${version}.tgz`;
}

/**
 * The npm protocol over PackagesService: publish documents checked as the npm CLI and Gitea do
 * (one version, one tarball whose SHA-512 and SHA-1 match the manifest's `dist`), packuments (full
 * and abbreviated) with tarball URLs under this registry, dist-tags and deprecations.
 */
@Injectable()
export class NpmRegistryService {
  constructor(private readonly packages: PackagesService) {}

  registryUrl(owner: User): string {
    return `${this.packages.publicUrl}api/packages/${encodeURIComponent(owner.name)}/npm`;
  }

  tarballUrl(owner: User, name: string, version: string): string {
    return `${this.registryUrl(owner)}/${name.startsWith('@') ? name.replace('/', '%2f') : name}/-/${version}/${tarballName(name, version)}`;
  }

  /** `PUT /{name}` with `_attachments`: a new version. */
  async publish(
    owner: User,
    creator: User,
    urlName: string,
    doc: PublishDocument,
    request: RequestSnapshot | null,
  ): Promise<PackageVersion> {
    const name = typeof doc.name === 'string' ? doc.name : '';
    if (!isValidNpmName(name) || name !== urlName) throw invalid('invalid package name', 'NPM_NAME');
    if (!isObject(doc.versions) || Object.keys(doc.versions).length !== 1)
      throw invalid('exactly one version must be published', 'NPM_VERSIONS');
    const [version, manifest] = Object.entries(doc.versions)[0]!;
    if (!semver.valid(version) || !isObject(manifest))
      throw invalid('invalid package version', 'NPM_VERSION');
    if (!isObject(doc._attachments) || Object.keys(doc._attachments).length !== 1)
      throw invalid('exactly one tarball must be attached', 'NPM_ATTACHMENTS');
    const attachment = Object.values(doc._attachments)[0];
    if (!isObject(attachment) || typeof attachment.data !== 'string')
      throw invalid('the attachment has no data', 'NPM_ATTACHMENTS');
    const bytes = Buffer.from(attachment.data, 'base64');
    const dist = isObject(manifest.dist) ? manifest.dist : {};
    // The tarball is in memory: its digests are computed here once and stored with the blob (no digest job).
    const sha512Hex = createHash('sha512').update(bytes).digest('hex');
    const sha512 = Buffer.from(sha512Hex, 'hex').toString('base64');
    const sha1 = createHash('sha1').update(bytes).digest('hex');
    const md5 = createHash('md5').update(bytes).digest('hex');
    if (
      typeof dist.integrity === 'string' &&
      dist.integrity.startsWith('sha512-') &&
      dist.integrity !== `sha512-${sha512}`
    )
      throw invalid('integrity mismatch: the tarball does not match dist.integrity', 'NPM_INTEGRITY');
    if (typeof dist.shasum === 'string' && dist.shasum !== sha1)
      throw invalid('integrity mismatch: the tarball does not match dist.shasum', 'NPM_INTEGRITY');
    const tags = publishedDistTags(isObject(doc['dist-tags']) ? doc['dist-tags'] : undefined, version);
    const stored = {
      ...manifest,
      name,
      version,
      ...(typeof doc.readme === 'string' && !manifest.readme ? { readme: doc.readme } : {}),
    };
    delete (stored as Record<string, unknown>).dist;
    const { version: row } = await this.packages.addFile({
      owner,
      creator,
      type: 'npm',
      name,
      version,
      fileName: tarballName(name, version),
      body: Readable.from([bytes]),
      expectedSize: bytes.length,
      digests: { md5, sha1, sha512: sha512Hex },
      contentType: 'application/octet-stream',
      isLead: true,
      semverCompatible: true,
      newVersionOnly: true,
      metadata: stored,
      distTags: tags,
      request,
    });
    return row;
  }

  /**
   * `PUT /{name}` without attachments: what `npm deprecate` (and `npm unpublish` of one version,
   * through `-rev`) sends: the packument with changed `deprecated` fields. Only those are applied.
   */
  async updateMetadata(pkg: Package, doc: PublishDocument): Promise<void> {
    if (!isObject(doc.versions)) return;
    for (const version of await this.packages.versionsOf(pkg)) {
      const sent = doc.versions[version.version];
      if (!isObject(sent)) continue;
      const metadata = withDeprecation(version.metadata, sent);
      if (metadata.deprecated !== version.metadata.deprecated)
        await this.packages.updateVersionMetadata(version, metadata);
    }
  }

  /**
   * Version documents by package and owner name (the tarball URLs carry it), until a package,
   * version, file or blob row changes (download counts are activity writes and keep them). Shared
   * between requests: never mutated.
   */
  private readonly docsCache = new VersionedCache<
    string,
    { version: PackageVersion; doc: Record<string, unknown> }[]
  >(PACKUMENT_CACHE);

  /**
   * Packuments as sent (JSON text and its ETag), full and abbreviated, on the same terms as the version
   * documents: `npm install` resolves a tree one packument at a time, so each request's latency adds up
   * (issue 15 item 7), and rebuilding, serialising and hashing the same document was most of it.
   */
  private readonly bodiesCache = new VersionedCache<string, SerializedDocument>(PACKUMENT_CACHE);

  /** The full or abbreviated packument serialised, with a weak ETag of the text (Express's format). */
  async packumentBody(owner: User, pkg: Package, abbreviated: boolean): Promise<SerializedDocument> {
    return this.bodiesCache.get(`${abbreviated ? 'a' : 'f'}|${pkg.id}|${owner.name}`, async () => {
      const body = JSON.stringify(
        abbreviated ? await this.abbreviated(owner, pkg) : await this.packument(owner, pkg),
      );
      return { body, etag: weakEtag(body) };
    });
  }

  private versionDocs(
    owner: User,
    pkg: Package,
  ): Promise<{ version: PackageVersion; doc: Record<string, unknown> }[]> {
    return this.docsCache.get(`${pkg.id}|${owner.name}`, () => this.loadVersionDocs(owner, pkg));
  }

  private async loadVersionDocs(
    owner: User,
    pkg: Package,
  ): Promise<{ version: PackageVersion; doc: Record<string, unknown> }[]> {
    const out: { version: PackageVersion; doc: Record<string, unknown> }[] = [];
    for (const { version, files } of await this.packages.versionsWithFiles(pkg)) {
      const file = files.find((f) => f.isLead) ?? files[0];
      if (!file) continue;
      out.push({
        version,
        doc: {
          ...version.metadata,
          name: pkg.name,
          version: version.version,
          _id: `${pkg.name}@${version.version}`,
          dist: {
            tarball: this.tarballUrl(owner, pkg.name, version.version),
            // versionsWithFiles completes the digests of every blob it returns.
            shasum: file.blob.sha1!,
            integrity: `sha512-${Buffer.from(file.blob.sha512!, 'hex').toString('base64')}`,
          },
        },
      });
    }
    return out;
  }

  private distTags(pkg: Package, versions: PackageVersion[]): Record<string, string> {
    return resolveDistTags(
      pkg.distTags,
      versions.map((v) => v.version),
    );
  }

  /** The full packument (`GET /{name}`). */
  async packument(owner: User, pkg: Package): Promise<Record<string, unknown>> {
    const entries = await this.versionDocs(owner, pkg);
    const versions = entries.map((e) => e.version);
    const tags = this.distTags(pkg, versions);
    const latest = entries.find((e) => e.version.version === tags.latest)?.doc ?? {};
    const modified = versions.reduce((max, v) => (v.createdAt > max ? v.createdAt : max), pkg.createdAt);
    return {
      _id: pkg.name,
      _rev: `${versions.length}-${pkg.id}`,
      name: pkg.name,
      description: typeof latest.description === 'string' ? latest.description : '',
      'dist-tags': tags,
      versions: Object.fromEntries(entries.map((e) => [e.version.version, e.doc])),
      time: {
        created: pkg.createdAt.toISOString(),
        modified: modified.toISOString(),
        ...Object.fromEntries(versions.map((v) => [v.version, v.createdAt.toISOString()])),
      },
      ...(typeof latest.readme === 'string' ? { readme: latest.readme } : {}),
      ...(latest.repository !== undefined ? { repository: latest.repository } : {}),
      ...(latest.license !== undefined ? { license: latest.license } : {}),
    };
  }

  /** The abbreviated packument npm installs from (`Accept: application/vnd.npm.install-v1+json`). */
  async abbreviated(owner: User, pkg: Package): Promise<Record<string, unknown>> {
    const entries = await this.versionDocs(owner, pkg);
    const versions = entries.map((e) => e.version);
    const modified = versions.reduce((max, v) => (v.createdAt > max ? v.createdAt : max), pkg.createdAt);
    return {
      name: pkg.name,
      modified: modified.toISOString(),
      'dist-tags': this.distTags(pkg, versions),
      versions: Object.fromEntries(
        entries.map((e) => {
          const doc: Record<string, unknown> = { dist: e.doc.dist };
          for (const field of ABBREVIATED_FIELDS) if (e.doc[field] !== undefined) doc[field] = e.doc[field];
          return [e.version.version, doc];
        }),
      ),
    };
  }

  async distTagsOf(pkg: Package): Promise<Record<string, string>> {
    return this.distTags(pkg, await this.packages.versionsOf(pkg));
  }
}

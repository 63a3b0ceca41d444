import { VersionedCache } from '../../../platform/cache/versioned-cache';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { Body, Delete, Get, Head, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import semver from 'semver';
import { LargeJsonBody, RawBody } from '../../../api/body/body.decorators';
import { NpmController } from '../../../api/npm/npm-controller.decorator';
import { BadRequestError, NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { BlobStore } from '../../../platform/storage/blob-store';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import { NpmPublishDto, NpmSearchQueryDto } from '../dto/npm.dto';
import type { Package } from '../entities/package.entity';
import { WritesToOwner } from '../npm/npm-publish-access';
import { isValidNpmName, NpmRegistryService } from '../npm/npm-registry.service';
import { PackagePermissions } from '../package-permissions.service';
import { requireRegistryAccess, resolvePackageOwner } from '../package-owner';
import { PackagesService } from '../packages.service';
import { sendPackageFile } from './send-package-file';

const ERROR = { description: 'npm error `{"error": "..."}`' };
const ABBREVIATED = 'application/vnd.npm.install-v1+json';
type NameParams = { owner: string; name: string };
type TagParams = NameParams & { tag: string };
type FileParams = NameParams & { version: string; filename: string };

/** How long package rows and tarball rows stay cached when no write announces a change. */
const PACKAGE_CACHE_TTL_MS = 300_000;
/**
 * The npm registry (`/api/packages/{owner}/npm/`), for the npm CLI with `registry=` and
 * `_authToken=`: publish, packuments (full and abbreviated), tarballs, dist-tags, unpublish,
 * deprecate, search, whoami. Scoped names arrive encoded (`@scope%2fname`), as npm sends them.
 * Access failures are 401 with a Basic challenge.
 */
@DocumentPathParams()
@NpmController(':owner/npm')
export class NpmRegistryController {
  constructor(
    private readonly users: UsersService,
    private readonly permissions: PackagePermissions,
    private readonly packages: PackagesService,
    private readonly npm: NpmRegistryService,
    private readonly blobs: BlobStore,
  ) {}

  /** Owners and packages by name, until a user or package row changes (every registry request asks). */
  private readonly owners = new VersionedCache<string, User>({ tables: ['users'], ttlMs: 30_000 });
  private readonly packageRows = new VersionedCache<string, Package | null>({
    tables: ['packages'],
    ttlMs: PACKAGE_CACHE_TTL_MS,
    keep: (value) => value !== null,
  });

  /**
   * Tarball rows by path (npm install asks for each once per client), until a package row changes.
   * Writes to the package tables drop these entries at once (here and, over the ClusterBus, on other
   * instances), so the TTL only bounds a missed announcement: at 30 s every entry expired in the middle
   * of an install (each reload a query), which made `npm install` as slow as Verdaccio's or slower.
   */
  private readonly files = new VersionedCache<string, Awaited<ReturnType<PackagesService['findFileByPath']>>>(
    {
      tables: ['packages', 'package_versions', 'package_files', 'package_blobs'],
      ttlMs: PACKAGE_CACHE_TTL_MS,
    },
  );

  private owner(ownerName: string): Promise<User> {
    return this.owners.get(ownerName.toLowerCase(), () => resolvePackageOwner(this.users, ownerName));
  }

  private async readable(principal: Principal | undefined, ownerName: string): Promise<User> {
    const owner = await this.owner(ownerName);
    await requireRegistryAccess(this.permissions, principal?.user ?? null, owner, 'read');
    return owner;
  }

  private async writable(principal: Principal, ownerName: string): Promise<User> {
    const owner = await this.owner(ownerName);
    await requireRegistryAccess(this.permissions, principal.user, owner, 'write');
    return owner;
  }

  private async requirePackage(owner: User, name: string): Promise<Package> {
    const pkg = await this.packageRows.get(`${owner.id}|${name.toLowerCase()}`, () =>
      this.packages.findPackage(owner, 'npm', name),
    );
    if (!pkg) throw new NotFoundError('package does not exist', { code: 'PACKAGE_NOT_FOUND' });
    return pkg;
  }

  @Get('-/whoami')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm whoami' })
  @ApiOkResponse({ schema: { type: 'object', properties: { username: { type: 'string' } } } })
  whoami(@CurrentPrincipal() principal: Principal): { username: string } {
    return { username: principal.user.name };
  }

  @Get('-/ping')
  @Public({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm ping' })
  @ApiOkResponse({ schema: { type: 'object' } })
  ping(): Record<string, never> {
    return {};
  }

  @Get('-/v1/search')
  @Public({ scopes: ['package'] })
  @ApiOperation({ summary: "npm search over this owner's packages" })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        objects: { type: 'array', items: { type: 'object' } },
        total: { type: 'integer' },
        time: { type: 'string' },
      },
    },
  })
  async search(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('owner') ownerName: string,
    @Query() query: NpmSearchQueryDto,
  ): Promise<Record<string, unknown>> {
    const owner = await this.readable(principal, ownerName);
    const size = Math.min(Math.max(Number(query.size ?? 20) || 20, 1), 250);
    const from = Math.max(Number(query.from ?? 0) || 0, 0);
    const { items, total } = await this.packages.search('npm', query.text ?? '', [owner.id], size, from);
    const objects = [];
    for (const pkg of items) {
      const doc = await this.npm.packument(owner, pkg);
      const tags = doc['dist-tags'] as Record<string, string>;
      const latest = ((doc.versions as Record<string, Record<string, unknown>>)[tags.latest ?? ''] ??
        {}) as Record<string, unknown>;
      objects.push({
        package: {
          name: pkg.name,
          scope: pkg.name.startsWith('@') ? pkg.name.slice(1, pkg.name.indexOf('/')) : 'unscoped',
          version: tags.latest,
          description: latest.description ?? '',
          keywords: Array.isArray(latest.keywords) ? latest.keywords : [],
          date: (doc.time as Record<string, string>)[tags.latest ?? ''] ?? pkg.createdAt.toISOString(),
          links: {},
          publisher: { username: owner.name, email: '' },
          maintainers: [{ username: owner.name, email: '' }],
        },
        score: { final: 1, detail: { quality: 1, popularity: 1, maintenance: 1 } },
        searchScore: 1,
      });
    }
    return { objects, total, time: new Date().toUTCString() };
  }

  @Get('-/package/:name/dist-tags')
  @Public({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm dist-tag ls' })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { type: 'string' } } })
  @ApiResponse({ status: 404, ...ERROR })
  async listTags(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: NameParams,
  ): Promise<Record<string, string>> {
    const owner = await this.readable(principal, params.owner);
    return this.npm.distTagsOf(await this.requirePackage(owner, params.name));
  }

  @Put('-/package/:name/dist-tags/:tag')
  @RawBody({ limitBytes: 4096 })
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm dist-tag add (the body is the version as a JSON string)' })
  @ApiBody({ schema: { type: 'string' } })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { type: 'string' } } })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async addTag(
    @CurrentPrincipal() principal: Principal,
    @Param() params: TagParams,
    @Req() req: Request,
  ): Promise<Record<string, string>> {
    const owner = await this.writable(principal, params.owner);
    const pkg = await this.requirePackage(owner, params.name);
    let version: unknown;
    try {
      version = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
    } catch {
      version = undefined;
    }
    if (typeof version !== 'string' || !version)
      throw new BadRequestError('the body must be a version as a JSON string', { code: 'NPM_TAG_VERSION' });
    if (!params.tag || semver.validRange(params.tag))
      throw new BadRequestError('invalid tag name', { code: 'NPM_TAG' });
    if (!(await this.packages.findVersion(pkg, version)))
      throw new NotFoundError('package version does not exist', { code: 'PACKAGE_VERSION_NOT_FOUND' });
    await this.packages.setDistTags(pkg, { [params.tag]: version });
    return this.npm.distTagsOf(pkg);
  }

  @Delete('-/package/:name/dist-tags/:tag')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm dist-tag rm (latest cannot be removed)' })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { type: 'string' } } })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async removeTag(
    @CurrentPrincipal() principal: Principal,
    @Param() params: TagParams,
  ): Promise<Record<string, string>> {
    const owner = await this.writable(principal, params.owner);
    const pkg = await this.requirePackage(owner, params.name);
    if (params.tag === 'latest')
      throw new BadRequestError('the latest tag cannot be removed', { code: 'NPM_TAG' });
    await this.packages.setDistTags(pkg, { [params.tag]: null });
    return this.npm.distTagsOf(pkg);
  }

  @Get(':name')
  @Public({ scopes: ['package'] })
  @ApiOperation({ summary: 'The packument (abbreviated with Accept: application/vnd.npm.install-v1+json)' })
  @ApiProduces('application/json', ABBREVIATED)
  @ApiOkResponse({ schema: { type: 'object' } })
  @ApiResponse({ status: 401, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async packument(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: NameParams,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    const owner = await this.readable(principal, params.owner);
    const pkg = await this.requirePackage(owner, params.name);
    const abbreviated = (req.get('accept') ?? '').includes(ABBREVIATED) && req.query.write === undefined;
    // Sent as the cached text with its ETag: Express then neither serialises nor hashes it again, and
    // still answers If-None-Match with 304.
    const { body, etag } = await this.npm.packumentBody(owner, pkg, abbreviated);
    res.type(abbreviated ? ABBREVIATED : 'application/json');
    res.setHeader('ETag', etag);
    return body;
  }

  @Put(':name')
  @LargeJsonBody()
  @WritesToOwner()
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({
    summary: 'npm publish (one version, tarball in _attachments); without attachments: npm deprecate',
  })
  @ApiOkResponse({ schema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 401, ...ERROR })
  @ApiResponse({ status: 413, ...ERROR })
  async publish(
    @CurrentPrincipal() principal: Principal,
    @Param() params: NameParams,
    @Body() body: NpmPublishDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ ok: boolean }> {
    const owner = await this.writable(principal, params.owner);
    if (!isValidNpmName(params.name)) throw new BadRequestError('invalid package name', { code: 'NPM_NAME' });
    if (!body._attachments || Object.keys(body._attachments).length === 0) {
      await this.npm.updateMetadata(await this.requirePackage(owner, params.name), body);
      return { ok: true };
    }
    await this.npm.publish(owner, principal.user, params.name, body, requestSnapshot(req));
    res.status(201);
    return { ok: true };
  }

  @Put(':name/-rev/:rev')
  @LargeJsonBody()
  @WritesToOwner()
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({
    summary: 'The packument write before an unpublish or deprecate (deprecations are applied)',
  })
  @ApiOkResponse({ schema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
  @ApiResponse({ status: 404, ...ERROR })
  async writeRevision(
    @CurrentPrincipal() principal: Principal,
    @Param() params: NameParams,
    @Body() body: NpmPublishDto,
  ): Promise<{ ok: boolean }> {
    const owner = await this.writable(principal, params.owner);
    await this.npm.updateMetadata(await this.requirePackage(owner, params.name), body);
    return { ok: true };
  }

  @Delete(':name/-rev/:rev')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm unpublish of the whole package' })
  @ApiOkResponse({ schema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
  @ApiResponse({ status: 404, ...ERROR })
  async unpublishPackage(
    @CurrentPrincipal() principal: Principal,
    @Param() params: NameParams,
    @Req() req: Request,
  ): Promise<{ ok: boolean }> {
    const owner = await this.writable(principal, params.owner);
    const pkg = await this.requirePackage(owner, params.name);
    pkg.owner = owner;
    await this.packages.deletePackage(pkg, principal.user, requestSnapshot(req));
    return { ok: true };
  }

  @Delete(':name/-/:version/:filename/-rev/:rev')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'npm unpublish of one version (its tarball)' })
  @ApiOkResponse({ schema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
  @ApiResponse({ status: 404, ...ERROR })
  async unpublishVersion(
    @CurrentPrincipal() principal: Principal,
    @Param() params: FileParams,
    @Req() req: Request,
  ): Promise<{ ok: boolean }> {
    const owner = await this.writable(principal, params.owner);
    const pkg = await this.requirePackage(owner, params.name);
    pkg.owner = owner;
    await this.packages.deleteVersion(
      pkg,
      await this.packages.requireVersion(pkg, params.version),
      principal.user,
      requestSnapshot(req),
    );
    return { ok: true };
  }

  @Get(':name/-/:version/:filename')
  @Head(':name/-/:version/:filename')
  @Public({ scopes: ['package'] })
  @ApiOperation({ summary: 'A version tarball' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the tarball' })
  @ApiResponse({ status: 404, ...ERROR })
  async tarball(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: FileParams,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const owner = await this.readable(principal, params.owner);
    const file = await this.files.get(
      `${owner.id}|${params.name.toLowerCase()}|${params.version}|${params.filename}`,
      () => this.packages.findFileByPath(owner, 'npm', params.name, params.version, params.filename),
    );
    await sendPackageFile(this.packages, this.blobs, file, req, res, 'npm');
  }
}

import { Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import { RepositoryLinks } from '../../../platform/ports/repository-links';
import { PackageListQueryDto, PackageVersionsQueryDto } from '../dto/packages.dto';
import type { PackageVersion } from '../entities/package-version.entity';
import type { Package } from '../entities/package.entity';
import {
  GiteaPackageDto,
  GiteaPackageFileDto,
  presentGiteaPackage,
  presentGiteaPackageFile,
} from '../gitea-package.presenter';
import { accessAtLeast, type PackageAccess, PackagePermissions } from '../package-permissions.service';
import { resolvePackageOwner } from '../package-owner';
import { PackagesService } from '../packages.service';

const ERROR = { description: 'Gitea error `{message, url}`' };
type OwnerParams = { owner: string };
type PackageParams = OwnerParams & { type: string; name: string };
type VersionParams = PackageParams & { version: string };

/**
 * Gitea's package management API (`/api/v1/packages/{owner}...`, reference §7.1), token scope
 * `package`. Guard order: token 401, scope 403, owner 404, package/version 404, access 403.
 */
@DocumentPathParams()
@GiteaController('packages/:owner')
export class GiteaPackagesController {
  constructor(
    private readonly users: UsersService,
    private readonly permissions: PackagePermissions,
    private readonly packages: PackagesService,
    private readonly repositories: RepositoryLinks,
  ) {}

  private async access(viewer: User, owner: User, required: PackageAccess): Promise<void> {
    const mode = await this.permissions.modeOf(viewer, owner);
    if (!accessAtLeast(mode, required))
      throw new ForbiddenError(
        required === 'read' ? 'no package read access' : 'no package write access',
        'permission',
        { code: 'PACKAGE_ACCESS' },
      );
  }

  private async present(
    pkg: Package,
    version: PackageVersion,
    owner: User,
    viewer: User,
  ): Promise<GiteaPackageDto> {
    const repository = pkg.repositoryId
      ? await this.repositories.presentForGitea(pkg.repositoryId, viewer.id)
      : null;
    return presentGiteaPackage(pkg, version, {
      owner,
      viewer,
      publicUrl: this.packages.publicUrl,
      repository,
    });
  }

  private async presentPage(
    items: { package: Package; version: PackageVersion }[],
    owner: User,
    viewer: User,
  ): Promise<GiteaPackageDto[]> {
    const out: GiteaPackageDto[] = [];
    for (const item of items) out.push(await this.present(item.package, item.version, owner, viewer));
    return out;
  }

  @Get()
  @GiteaPaged()
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: "List an owner's packages, one entry per version (newest first)" })
  @ApiOkResponse({ type: [GiteaPackageDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param() params: OwnerParams,
    @Query() query: PackageListQueryDto,
  ): Promise<GiteaPage<GiteaPackageDto>> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await this.access(principal.user, owner, 'read');
    const paging = giteaPaging(query);
    const type = query.type && query.type !== 'all' ? query.type : undefined;
    const { items, total } = await this.packages.list(owner, {
      type,
      q: query.q?.trim() || undefined,
      ...paging,
    });
    return new GiteaPage(await this.presentPage(items, owner, principal.user), total, paging);
  }

  @Get(':type/:name')
  @GiteaPaged()
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'The versions of a package (newest first)' })
  @ApiOkResponse({ type: [GiteaPackageDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async versions(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PackageParams,
    @Query() query: PackageVersionsQueryDto,
  ): Promise<GiteaPage<GiteaPackageDto>> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await this.access(principal.user, owner, 'read');
    const paging = giteaPaging(query);
    const { items, total } = await this.packages.list(owner, {
      type: params.type,
      name: params.name,
      ...paging,
    });
    if (total === 0) throw new NotFoundError('package does not exist', { code: 'PACKAGE_NOT_FOUND' });
    return new GiteaPage(await this.presentPage(items, owner, principal.user), total, paging);
  }

  @Delete(':type/:name')
  @HttpCode(204)
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Delete a package with every version' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async deletePackage(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PackageParams,
    @Req() req: Request,
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    await this.access(principal.user, owner, 'write');
    await this.packages.deletePackage(pkg, principal.user, requestSnapshot(req));
  }

  @Get(':type/:name/-/latest')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'The most recently created version of a package' })
  @ApiOkResponse({ type: GiteaPackageDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async latest(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PackageParams,
  ): Promise<GiteaPackageDto> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    await this.access(principal.user, owner, 'read');
    return this.present(pkg, await this.packages.latest(pkg), owner, principal.user);
  }

  @Post(':type/:name/-/link/:repo_name')
  @HttpCode(201)
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Link a package to a repository of the same owner' })
  @ApiCreatedResponse({ description: 'linked (empty body)' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async link(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PackageParams & { repo_name: string },
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await this.access(principal.user, owner, 'write');
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    const repo = await this.repositories.find(owner.id, params.repo_name);
    const mode = repo ? await this.repositories.accessOf(principal.user.id, repo.id) : 'none';
    if (!repo || mode === 'none')
      throw new NotFoundError('repository does not exist', { code: 'REPOSITORY_NOT_FOUND' });
    if (mode === 'read')
      throw new ForbiddenError('no permission to link this package to the repository', 'permission', {
        code: 'PACKAGE_LINK',
      });
    await this.packages.link(pkg, repo);
  }

  @Post(':type/:name/-/unlink')
  @HttpCode(204)
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Unlink a package from its repository (204, as Gitea answers)' })
  @ApiNoContentResponse({ description: 'unlinked' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async unlink(@CurrentPrincipal() principal: Principal, @Param() params: PackageParams): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await this.access(principal.user, owner, 'write');
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    const linkedMode = pkg.repositoryId
      ? await this.repositories.accessOf(principal.user.id, pkg.repositoryId)
      : null;
    if (linkedMode === 'none' || linkedMode === 'read') {
      throw new ForbiddenError('no permission to unlink this package from the repository', 'permission', {
        code: 'PACKAGE_LINK',
      });
    }
    await this.packages.unlink(pkg);
  }

  @Get(':type/:name/:version')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Get a package version' })
  @ApiOkResponse({ type: GiteaPackageDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param() params: VersionParams,
  ): Promise<GiteaPackageDto> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    const version = await this.packages.requireVersion(pkg, params.version);
    await this.access(principal.user, owner, 'read');
    return this.present(pkg, version, owner, principal.user);
  }

  @Delete(':type/:name/:version')
  @HttpCode(204)
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Delete a package version and its files' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async deleteVersion(
    @CurrentPrincipal() principal: Principal,
    @Param() params: VersionParams,
    @Req() req: Request,
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    const version = await this.packages.requireVersion(pkg, params.version);
    await this.access(principal.user, owner, 'write');
    await this.packages.deleteVersion(pkg, version, principal.user, requestSnapshot(req));
  }

  @Get(':type/:name/:version/files')
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'The files of a package version' })
  @ApiOkResponse({ type: [GiteaPackageFileDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async files(
    @CurrentPrincipal() principal: Principal,
    @Param() params: VersionParams,
  ): Promise<GiteaPackageFileDto[]> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    const pkg = await this.packages.requirePackage(owner, params.type, params.name);
    const version = await this.packages.requireVersion(pkg, params.version);
    await this.access(principal.user, owner, 'read');
    return (await this.packages.filesOf(version)).map(presentGiteaPackageFile);
  }
}

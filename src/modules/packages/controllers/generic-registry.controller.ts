import { Delete, Get, Head, HttpCode, Param, Put, Req, Res } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { BodyStream, StreamBody } from '../../../api/body/body.decorators';
import { MultipartForm } from '../../../api/body/multipart-form';
import { declaredBodySize } from '../../../api/body/request-body-stream';
import { GenericController } from '../../../api/generic/generic-controller.decorator';
import { BadRequestError, NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { BlobStore } from '../../../platform/storage/blob-store';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { UsersService } from '../../identity/users.service';
import { PackagePermissions } from '../package-permissions.service';
import { requireRegistryAccess, resolvePackageOwner } from '../package-owner';
import { PackagesService } from '../packages.service';
import { sendPackageFile } from './send-package-file';

const TEXT = { description: 'plain text error' };
const NAME = /^[-_+.\w]+$/;
const FILE_NAME = /^[-_+=:;.()[\]{}~!@#$%^& \w]+$/;

/** Gitea's generic package rules (reference §7.2). */
function checkNames(name: string, version: string, fileName?: string): void {
  if (!NAME.test(name) || name === '..' || (name.length === 1 && !/^[A-Za-z0-9]$/.test(name)))
    throw new BadRequestError('invalid package name', { code: 'PACKAGE_NAME' });
  if (!version || version.trim() !== version)
    throw new BadRequestError('invalid package version', { code: 'PACKAGE_VERSION' });
  if (
    fileName !== undefined &&
    (!FILE_NAME.test(fileName) || fileName.trim() !== fileName || fileName === '.' || fileName === '..')
  ) {
    throw new BadRequestError('invalid filename', { code: 'PACKAGE_FILE_NAME' });
  }
}

type FileParams = { owner: string; name: string; version: string; filename: string };
type VersionParams = { owner: string; name: string; version: string };

/**
 * The generic registry (`/api/packages/{owner}/generic/{name}/{version}/{filename}`): curl-style
 * uploads (raw body or multipart) streamed into the blob store, downloads with ranges, deletes.
 * Access failures are 401 with a Basic challenge; errors are plain text.
 */
@DocumentPathParams()
@GenericController(':owner/generic')
export class GenericRegistryController {
  constructor(
    private readonly users: UsersService,
    private readonly permissions: PackagePermissions,
    private readonly packages: PackagesService,
    private readonly blobs: BlobStore,
  ) {}

  @Put(':name/:version/:filename')
  @HttpCode(201)
  @StreamBody()
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Upload a file of a generic package version (raw body or multipart)' })
  @ApiConsumes('application/octet-stream', 'multipart/form-data')
  @ApiCreatedResponse({ description: 'stored' })
  @ApiResponse({ status: 400, ...TEXT })
  @ApiResponse({ status: 401, ...TEXT })
  @ApiResponse({ status: 409, description: 'the version already has a file of that name' })
  @ApiResponse({ status: 413, ...TEXT })
  async upload(
    @CurrentPrincipal() principal: Principal,
    @Param() params: FileParams,
    @BodyStream() body: Readable,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await requireRegistryAccess(this.permissions, principal.user, owner, 'write');
    checkNames(params.name, params.version, params.filename);
    const store = (stream: Readable, expectedSize?: number) =>
      this.packages.addFile({
        owner,
        creator: principal.user,
        type: 'generic',
        name: params.name,
        version: params.version,
        fileName: params.filename,
        body: stream,
        expectedSize,
        isLead: true,
        request: requestSnapshot(req),
      });
    if (/^multipart\/form-data\b/i.test(req.get('content-type') ?? '')) {
      let stored = false;
      for await (const part of new MultipartForm(req, res, Number.MAX_SAFE_INTEGER).parts()) {
        if (part.kind !== 'file') continue;
        await store(part.stream);
        stored = true;
        break;
      }
      if (!stored)
        throw new BadRequestError('no file in the multipart body', { code: 'PACKAGE_FILE_MISSING' });
    } else {
      await store(body, declaredBodySize(req));
    }
    res.status(201).end();
  }

  @Get(':name/:version/:filename')
  @Head(':name/:version/:filename')
  @Public({ scopes: ['package'] })
  @ApiOperation({ summary: 'Download a file of a generic package version (ranges, ETag)' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the file' })
  @ApiResponse({ status: 401, ...TEXT })
  @ApiResponse({ status: 404, ...TEXT })
  async download(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: FileParams,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await requireRegistryAccess(this.permissions, principal?.user ?? null, owner, 'read');
    const file = await this.packages.findFileByPath(
      owner,
      'generic',
      params.name,
      params.version,
      params.filename,
    );
    await sendPackageFile(this.packages, this.blobs, file, req, res, 'generic');
  }

  @Delete(':name/:version')
  @HttpCode(204)
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Delete a generic package version with its files' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 401, ...TEXT })
  @ApiResponse({ status: 404, ...TEXT })
  async deleteVersion(
    @CurrentPrincipal() principal: Principal,
    @Param() params: VersionParams,
    @Req() req: Request,
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await requireRegistryAccess(this.permissions, principal.user, owner, 'write');
    const pkg = await this.packages.requirePackage(owner, 'generic', params.name);
    await this.packages.deleteVersion(
      pkg,
      await this.packages.requireVersion(pkg, params.version),
      principal.user,
      requestSnapshot(req),
    );
  }

  @Delete(':name/:version/:filename')
  @HttpCode(204)
  @Authenticated({ scopes: ['package'] })
  @ApiOperation({ summary: 'Delete a file (the last file deletes the version)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 401, ...TEXT })
  @ApiResponse({ status: 404, ...TEXT })
  async deleteFile(
    @CurrentPrincipal() principal: Principal,
    @Param() params: FileParams,
    @Req() req: Request,
  ): Promise<void> {
    const owner = await resolvePackageOwner(this.users, params.owner);
    await requireRegistryAccess(this.permissions, principal.user, owner, 'write');
    const pkg = await this.packages.requirePackage(owner, 'generic', params.name);
    const version = await this.packages.requireVersion(pkg, params.version);
    const file = await this.packages.findFile(version, params.filename);
    if (!file) throw new NotFoundError('package file does not exist', { code: 'PACKAGE_FILE_NOT_FOUND' });
    await this.packages.deleteFile(pkg, version, file, principal.user, requestSnapshot(req));
  }
}

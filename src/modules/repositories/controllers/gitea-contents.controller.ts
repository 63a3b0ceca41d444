import { Body, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { detectContentType } from '../attachments/content-sniffing';
import { ContentsGit } from '../contents/contents-git';
import { streamGit } from '../contents/contents-stream';
import { type ChangeFilesInput, ContentsService, type FileChangeInput } from '../contents/contents.service';
import {
  presentContent,
  presentFileResponse,
  presentFilesResponse,
  repoLinks,
} from '../contents/gitea-contents.presenter';
import {
  ChangeFilesOptionsDto,
  CreateFileOptionsDto,
  DeleteFileOptionsDto,
  type GiteaFileOptionsDto,
  UpdateFileOptionsDto,
} from '../dto/contents.dto';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type PathParams = { owner: string; repo: string; filepath: string | string[] };
const FILEPATH = { name: 'filepath', description: 'path in the repository (slashes unescaped)' };
const REF = {
  name: 'ref',
  required: false,
  description: 'branch, tag or commit (default: the default branch)',
};
const joined = (value: string | string[]) => (Array.isArray(value) ? value.join('/') : value);

/** Strict base64 as Go's StdEncoding decodes it (whitespace is not allowed). */
function base64(content: string | undefined): Buffer {
  const value = content ?? '';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0)
    throw new InvalidError('illegal base64 data at input byte 0', { code: 'VALIDATION' });
  return Buffer.from(value, 'base64');
}

/**
 * Gitea's file routes (routers/api/v1/repo/file.go): contents read and written as commits, raw and
 * media downloads, archives streamed from `git archive`. Token scope `repository`.
 */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo')
export class GiteaContentsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly contents: ContentsService,
  ) {}

  private links(context: RepositoryContext) {
    return repoLinks(this.repositories.publicUrl, context.owner.name, context.repo.name);
  }

  private async read(context: RepositoryContext, filePath: string, ref: string | undefined) {
    if (context.repo.isEmpty && !ref) {
      if (filePath === '') return [];
      throw new NotFoundError(`object does not exist [id: , rel_path: ${filePath}]`, {
        code: 'CONTENT_NOT_FOUND',
      });
    }
    const resolved = await this.contents.resolve(context.repo, ref);
    const result = await this.contents.get(context.repo, resolved, filePath);
    const links = this.links(context);
    return result.kind === 'file'
      ? presentContent(result.entry, resolved, links, true)
      : result.entries.map((entry) => presentContent(entry, resolved, links, false));
  }

  @Get('contents')
  @Public()
  @ApiOperation({ summary: 'The entries of the root directory' })
  @ApiQuery(REF)
  @ApiOkResponse({ description: 'Gitea `[]ContentsResponse`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async root(@Repo() context: RepositoryContext, @Query('ref') ref?: string): Promise<unknown> {
    return this.read(context, '', typeof ref === 'string' ? ref : undefined);
  }

  @Get('contents/*filepath')
  @Public()
  @ApiOperation({ summary: 'A file with its base64 content, or the entries of a directory' })
  @ApiParam(FILEPATH)
  @ApiQuery(REF)
  @ApiOkResponse({ description: 'Gitea `ContentsResponse` or `[]ContentsResponse`' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @Param() params: PathParams,
    @Query('ref') ref?: string,
  ): Promise<unknown> {
    return this.read(context, joined(params.filepath), typeof ref === 'string' ? ref : undefined);
  }

  private async change(
    context: RepositoryContext,
    principal: Principal,
    body: GiteaFileOptionsDto,
    files: FileChangeInput[],
    req: Request,
  ) {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const input: ChangeFilesInput = {
      files,
      branch: body.branch,
      newBranch: body.new_branch,
      message: body.message,
      author: body.author,
      committer: body.committer,
      dates: body.dates,
    };
    return this.contents.change(context.repo, principal.user, input, requestSnapshot(req));
  }

  @Post('contents')
  @HttpCode(201)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Create, update or delete several files in one commit' })
  @ApiCreatedResponse({ description: 'Gitea `FilesResponse`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async changeFiles(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChangeFilesOptionsDto,
    @Req() req: Request,
  ): Promise<unknown> {
    const files = (body.files ?? []).map((file) => ({
      operation: file.operation,
      path: file.path,
      content: file.operation === 'delete' ? undefined : base64(file.content),
      sha: file.sha,
      fromPath: file.from_path,
    }));
    return presentFilesResponse(await this.change(context, principal, body, files, req), this.links(context));
  }

  @Post('contents/*filepath')
  @HttpCode(201)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Create a file (a commit on `branch` or `new_branch`)' })
  @ApiParam(FILEPATH)
  @ApiCreatedResponse({ description: 'Gitea `FileResponse`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: PathParams,
    @Body() body: CreateFileOptionsDto,
    @Req() req: Request,
  ): Promise<unknown> {
    const file: FileChangeInput = {
      operation: 'create',
      path: joined(params.filepath),
      content: base64(body.content),
    };
    return presentFileResponse(await this.change(context, principal, body, [file], req), this.links(context));
  }

  @Put('contents/*filepath')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Update (or move, `from_path`) a file whose blob sha is `sha`' })
  @ApiParam(FILEPATH)
  @ApiOkResponse({ description: 'Gitea `FileResponse`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async update(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: PathParams,
    @Body() body: UpdateFileOptionsDto,
    @Req() req: Request,
  ): Promise<unknown> {
    const file: FileChangeInput = {
      operation: 'update',
      path: joined(params.filepath),
      content: base64(body.content),
      sha: body.sha,
      fromPath: body.from_path,
    };
    return presentFileResponse(await this.change(context, principal, body, [file], req), this.links(context));
  }

  @Delete('contents/*filepath')
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a file whose blob sha is `sha`' })
  @ApiParam(FILEPATH)
  @ApiOkResponse({ description: 'Gitea `FileDeleteResponse`' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async remove(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: PathParams,
    @Body() body: DeleteFileOptionsDto,
    @Req() req: Request,
  ): Promise<unknown> {
    const file: FileChangeInput = { operation: 'delete', path: joined(params.filepath), sha: body.sha };
    return presentFileResponse(await this.change(context, principal, body, [file], req), this.links(context));
  }

  private async sendBlob(
    context: RepositoryContext,
    params: PathParams,
    ref: string | undefined,
    req: Request,
    res: Response,
  ): Promise<void> {
    const filePath = joined(params.filepath);
    const located =
      typeof ref === 'string' && ref !== ''
        ? { ref: await this.contents.resolve(context.repo, ref), path: filePath }
        : await this.contents.resolvePathRef(context.repo, filePath);
    const entry = await this.contents.blobAt(context.repo, located.ref, located.path);
    const gitDir = this.contents.gitDir(context.repo);
    const etag = `"${entry.sha}"`;
    if (req.get('if-none-match') === etag) {
      res.status(304).set({ ETag: etag }).end();
      return;
    }
    // Sniffed from the first KiB (blobs up to 1 MiB are read for it; larger ones are served as bytes).
    const sniffed =
      entry.size > 1024 * 1024
        ? 'application/octet-stream'
        : detectContentType((await ContentsGit.blob(gitDir, entry.sha)).subarray(0, 1024));
    // Gitea serves text as text/plain (never HTML or SVG from the repository's origin).
    const type = sniffed.startsWith('text/') ? 'text/plain; charset=utf-8' : sniffed;
    const name = located.path.split('/').pop() ?? 'file';
    await streamGit(res, gitDir, ['cat-file', 'blob', entry.sha], {
      'Content-Type': type,
      'Content-Length': String(entry.size),
      'Content-Disposition': `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
      ETag: etag,
      'Cache-Control': 'private, max-age=300',
    });
  }

  @Get('raw/*filepath')
  @Public()
  @ApiOperation({
    summary: "A file's bytes (`?ref=`, or a branch, tag or commit as the path's first segments)",
  })
  @ApiParam(FILEPATH)
  @ApiQuery(REF)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the file' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async raw(
    @Repo() context: RepositoryContext,
    @Param() params: PathParams,
    @Req() req: Request,
    @Res() res: Response,
    @Query('ref') ref?: string,
  ): Promise<void> {
    await this.sendBlob(context, params, typeof ref === 'string' ? ref : undefined, req, res);
  }

  @Get('media/*filepath')
  @Public()
  @ApiOperation({ summary: "A file's bytes, or the Git LFS object its pointer names" })
  @ApiParam(FILEPATH)
  @ApiQuery(REF)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'the file' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async media(
    @Repo() context: RepositoryContext,
    @Param() params: PathParams,
    @Req() req: Request,
    @Res() res: Response,
    @Query('ref') ref?: string,
  ): Promise<void> {
    await this.sendBlob(context, params, typeof ref === 'string' ? ref : undefined, req, res);
  }

  @Get('archive/*archive')
  @Public()
  @ApiOperation({ summary: 'An archive of a branch, tag or commit (`{ref}.zip`, `{ref}.tar.gz`), streamed' })
  @ApiParam({ name: 'archive', description: 'the ref and the format, e.g. `main.zip`' })
  @ApiProduces('application/zip', 'application/gzip')
  @ApiOkResponse({ description: 'the archive' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async archive(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; archive: string | string[] },
    @Res() res: Response,
  ): Promise<void> {
    const archive = joined(params.archive);
    const format = archive.endsWith('.zip') ? 'zip' : archive.endsWith('.tar.gz') ? 'tar.gz' : null;
    if (!format) throw new NotFoundError('Unknown archive format', { code: 'REF_NOT_FOUND' });
    const refName = archive.slice(0, -(format.length + 1));
    if (context.repo.isEmpty || !refName) throw new NotFoundError('not found', { code: 'REF_NOT_FOUND' });
    const ref = await this.contents.tryResolve(context.repo, refName);
    if (!ref) throw new NotFoundError(`no such ref: ${refName}`, { code: 'REF_NOT_FOUND' });
    const fileName = `${context.repo.name}-${refName.replace(/\//g, '-')}.${format}`;
    await streamGit(
      res,
      this.contents.gitDir(context.repo),
      ['archive', `--format=${format}`, `--prefix=${context.repo.name}/`, ref.commit],
      {
        'Content-Type': format === 'zip' ? 'application/zip' : 'application/gzip',
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`,
      },
    );
  }
}

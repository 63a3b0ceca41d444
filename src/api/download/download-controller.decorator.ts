import { applyDecorators, Controller, SetMetadata, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DIALECT_METADATA } from '../dialect';
import { GenericExceptionFilter } from '../dialect-exception.filter';

/**
 * A file download route outside the APIs (Gitea's web routes: `/attachments/{uuid}`,
 * `/{owner}/{repo}/releases/download/{tag}/{name}`), mounted at the site root: errors are plain
 * text, as a browser or `curl` shows them.
 */
export function DownloadController(path = ''): ClassDecorator {
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'generic'),
    Controller(path),
    UseFilters(GenericExceptionFilter),
    ApiTags('downloads'),
  );
}

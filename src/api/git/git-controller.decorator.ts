import { applyDecorators, Controller, SetMetadata, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DIALECT_METADATA } from '../dialect';
import { GitExceptionFilter } from '../dialect-exception.filter';

/**
 * A git smart HTTP controller (`/{owner}/{repo}.git/info/refs`, `git-upload-pack`, `git-receive-pack`):
 * errors are plain text git prints, 401 asks for Basic credentials. Pack routes take the request as a
 * stream (`@StreamBody()` + `@BodyStream()`), inflated when git sends `Content-Encoding: gzip`.
 */
export function GitController(path: string): ClassDecorator {
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'git'),
    Controller(path),
    UseFilters(GitExceptionFilter),
    // In the public document (issue 51.2): the routes git itself calls, for operators and proxies.
    ApiTags('git'),
  );
}

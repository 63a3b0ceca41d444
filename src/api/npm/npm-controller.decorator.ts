import { applyDecorators, Controller, SetMetadata, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DIALECT_METADATA } from '../dialect';
import { NpmExceptionFilter } from '../dialect-exception.filter';

/**
 * An npm registry controller, mounted at `/api/packages/<path>` (e.g. `':owner/npm'`): bare JSON
 * documents, errors as `{"error": "..."}`, 401 with a Basic challenge. Publish takes `@LargeJsonBody()`.
 */
export function NpmController(path: string, options: { root?: string } = {}): ClassDecorator {
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'npm'),
    Controller(`${options.root ?? 'api/packages'}/${path}`),
    UseFilters(NpmExceptionFilter),
    ApiTags('npm registry'),
  );
}

import { applyDecorators, Controller, SetMetadata, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DIALECT_METADATA } from '../dialect';
import { GenericExceptionFilter } from '../dialect-exception.filter';

/**
 * A generic package registry controller, mounted at `/api/packages/<path>` (e.g. `':owner/generic'`):
 * files go up as raw streams (`@StreamBody()`), errors are plain text, 401 with a Basic challenge.
 */
export function GenericController(path: string, options: { root?: string } = {}): ClassDecorator {
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'generic'),
    Controller(`${options.root ?? 'api/packages'}/${path}`),
    UseFilters(GenericExceptionFilter),
    ApiTags('generic registry'),
  );
}

import { applyDecorators, Controller, SetMetadata, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { CALLER_RULES } from '../../platform/http/request-caller';
import { DIALECT_METADATA } from '../dialect';
import { CODER_CSRF_RULE } from './coder-csrf.rule';
import { CoderExceptionFilter } from '../dialect-exception.filter';
import { CoderBodyGuard } from './coder-body.guard';
import { CoderResponseDto } from './coder-response.dto';

/**
 * A Coder-dialect controller: `/api/v2/<path>` (or `/api/experimental/<path>`), bare JSON bodies,
 * errors as `{message, detail, validations}`.
 */
export function CoderController(
  path: string | string[],
  options: { experimental?: boolean } = {},
): ClassDecorator {
  const prefix = options.experimental ? 'api/experimental' : 'api/v2';
  const paths = (Array.isArray(path) ? path : [path]).map((one) =>
    one === '' ? prefix : `${prefix}/${one}`,
  );
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'coder'),
    SetMetadata(CALLER_RULES, [CODER_CSRF_RULE]),
    Controller(paths.length === 1 ? paths[0]! : paths),
    UseFilters(CoderExceptionFilter),
    // Body shape as Go's decoder sees it, for routes whose body DTO is a @GoStruct.
    UseGuards(CoderBodyGuard),
    ApiTags(options.experimental ? 'coder (experimental)' : 'coder'),
    ApiExtraModels(CoderResponseDto),
  );
}

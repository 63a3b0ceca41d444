import {
  applyDecorators,
  Controller,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ApiHeader, ApiQuery, ApiTags } from '@nestjs/swagger';
import { FormBody } from '../body/body.decorators';
import { DIALECT_METADATA } from '../dialect';
import { OcsExceptionFilter } from '../dialect-exception.filter';
import { OcsApiRequestGuard } from './ocs-api-request.guard';
import { OcsEnvelopeInterceptor } from './ocs-envelope.interceptor';

/**
 * An OCS controller under `/ocs/v2.php/<path>`: OCS envelope, XML unless JSON is asked for, CSRF rule.
 * Bodies are JSON or form-encoded (Nextcloud binds parameters from either).
 */
export function OcsController(path: string): ClassDecorator {
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'ocs'),
    FormBody(),
    Controller(`ocs/v2.php/${path}`),
    UseFilters(OcsExceptionFilter),
    UseGuards(OcsApiRequestGuard),
    UseInterceptors(OcsEnvelopeInterceptor),
    ApiTags('ocs'),
    ApiHeader({ name: 'OCS-APIRequest', required: true, schema: { type: 'string', enum: ['true'] } }),
    ApiQuery({ name: 'format', required: false, enum: ['json', 'xml'] }),
  );
}

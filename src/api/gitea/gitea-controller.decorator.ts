import { applyDecorators, Controller, UseFilters, UseInterceptors } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { GiteaExceptionFilter } from '../dialect-exception.filter';
import { GiteaResponseInterceptor } from './gitea-response.interceptor';

/** A Gitea-dialect controller under `/api/v1/<path>`: bare JSON, `{message, url}` errors, paging headers. */
export function GiteaController(path: string): ClassDecorator {
  return applyDecorators(
    Controller(path === '' ? 'api/v1' : `api/v1/${path}`),
    UseFilters(GiteaExceptionFilter),
    UseInterceptors(GiteaResponseInterceptor),
    ApiTags('gitea'),
  );
}

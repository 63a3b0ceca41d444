import { applyDecorators, Controller, SetMetadata, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CALLER_RULES } from '../../platform/http/request-caller';
import { DIALECT_METADATA } from '../dialect';
import { GITEA_CSRF_RULE } from './gitea-csrf.rule';
import { GITEA_MUST_CHANGE_PASSWORD_RULE } from './gitea-must-change-password.rule';
import { GiteaExceptionFilter } from '../dialect-exception.filter';

/**
 * A Gitea-dialect controller under `/api/v1/<path>`: bare JSON, `{message, url}` errors
 * (`X-Content-Type-Options: nosniff` comes from helmet on every response). List routes add `@GiteaPaged()`.
 */
export function GiteaController(path: string): ClassDecorator {
  return applyDecorators(
    SetMetadata(DIALECT_METADATA, 'gitea'),
    SetMetadata(CALLER_RULES, [GITEA_MUST_CHANGE_PASSWORD_RULE, GITEA_CSRF_RULE]),
    Controller(path === '' ? 'api/v1' : `api/v1/${path}`),
    UseFilters(GiteaExceptionFilter),
    ApiTags('gitea'),
  );
}

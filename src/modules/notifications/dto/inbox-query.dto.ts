import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  QueryEnum,
  QueryRejectUnknown,
  QueryString,
  QueryUuid,
  QueryUuidList,
} from '../../../api/coder/coder-dto.decorators';
import { CREDENTIAL_PARAMS, READ_STATUS_MESSAGE, type ReadStatus } from '../inbox/inbox-query';
import { parseUuid } from '../inbox/uuid';

const READ_STATUSES = ['all', 'read', 'unread'] as const;

/**
 * `GET /notifications/inbox` query, as Coder's QueryParamParser reads it: first value wins, an
 * empty value is absent, unknown parameters are errors (credential parameters excepted).
 */
export class ListInboxQueryDto {
  @ApiPropertyOptional({ description: 'comma-separated target ids (all must match)' })
  @QueryUuidList(parseUuid)
  targets?: string[];

  @ApiPropertyOptional({ description: 'comma-separated template ids (any may match)' })
  @QueryUuidList(parseUuid)
  templates?: string[];

  @ApiPropertyOptional({ enum: READ_STATUSES })
  @QueryEnum(READ_STATUSES, READ_STATUS_MESSAGE)
  read_status?: ReadStatus;

  @ApiPropertyOptional({ description: 'id of the last item of the current page' })
  @QueryUuid(parseUuid)
  starting_before?: string;

  @QueryRejectUnknown(['targets', 'templates', 'read_status', 'starting_before'], [...CREDENTIAL_PARAMS])
  unknown_params?: string[];
}

/** `GET /notifications/inbox/watch` query (the plain-GET answer; the WebSocket gateway reads the same rules). */
export class WatchInboxQueryDto {
  @ApiPropertyOptional({ description: 'comma-separated target ids (all must match)' })
  @QueryUuidList(parseUuid)
  targets?: string[];

  @ApiPropertyOptional({ description: 'comma-separated template ids (any may match)' })
  @QueryUuidList(parseUuid)
  templates?: string[];

  @ApiPropertyOptional({ enum: READ_STATUSES })
  @QueryEnum(READ_STATUSES, READ_STATUS_MESSAGE)
  read_status?: ReadStatus;

  @ApiPropertyOptional({ enum: ['markdown', 'plaintext'] })
  @QueryString()
  format?: string;

  @QueryRejectUnknown(['targets', 'templates', 'read_status', 'format'], [...CREDENTIAL_PARAMS])
  unknown_params?: string[];
}

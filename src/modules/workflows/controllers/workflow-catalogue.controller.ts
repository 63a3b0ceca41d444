import { Get } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiOcsOkResponse } from '../../../api/ocs/api-ocs-ok-response.decorator';
import { OcsController } from '../../../api/ocs/ocs-controller.decorator';
import { Authenticated } from '../../../api/access/access.decorators';
import { buildCatalogue, type WorkflowCatalogue } from '../workflow-catalogue';

const strings = { type: 'array', items: { type: 'string' } } as const;
const text = { type: 'string' } as const;
/** An array of `{id, name, ...}` objects. */
const listOf = (properties: Record<string, object>) => ({
  type: 'array',
  items: { type: 'object', properties: { id: text, name: text, ...properties } },
});
const scopes = { type: 'array', items: { type: 'integer' } } as const;
const CATALOGUE_SCHEMA = {
  type: 'object',
  required: ['entities', 'checks', 'operations', 'operatorAliases'],
  properties: {
    entities: listOf({
      events: {
        type: 'array',
        items: {
          type: 'object',
          properties: { eventName: text, displayName: text, emitted: { type: 'boolean' } },
        },
      },
    }),
    checks: listOf({
      operators: strings,
      valueFormat: text,
      examples: strings,
      supportedEntities: strings,
      scopes,
    }),
    operations: listOf({
      description: text,
      scopes,
      complex: { type: 'boolean' },
      triggerHint: text,
      entity: text,
      operationFormat: text,
    }),
    operatorAliases: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

@OcsController('apps/workflowengine/api/v1')
export class WorkflowCatalogueController {
  @Get('catalogue')
  // Part of the caller's rule editor: the same scopes as reading the caller's rules (workflows README).
  @Authenticated({ scopes: ['user'], tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({
    summary:
      'Entities with their events, checks with operators and value formats, operations with their scopes',
  })
  @ApiOcsOkResponse(CATALOGUE_SCHEMA, 'The catalogue in the OCS envelope')
  @ApiResponse({ status: 401, description: 'Not logged in (statuscode 997)' })
  catalogue(): WorkflowCatalogue {
    return buildCatalogue();
  }
}

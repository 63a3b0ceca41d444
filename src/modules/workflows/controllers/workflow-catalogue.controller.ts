import { Get } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiOcsOkResponse } from '../../../api/ocs/api-ocs-ok-response.decorator';
import { OcsController } from '../../../api/ocs/ocs-controller.decorator';
import { Authenticated } from '../../auth/access.decorators';
import { buildCatalogue, type WorkflowCatalogue } from '../workflow-catalogue';

const strings = { type: 'array', items: { type: 'string' } } as const;
const CATALOGUE_SCHEMA = {
  type: 'object',
  required: ['entities', 'checks', 'operations', 'operatorAliases'],
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', example: 'OCA\\WorkflowEngine\\Entity\\File' },
          name: { type: 'string' },
          events: {
            type: 'array',
            items: {
              type: 'object',
              properties: { eventName: { type: 'string' }, displayName: { type: 'string' }, emitted: { type: 'boolean' } },
            },
          },
        },
      },
    },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          operators: strings,
          valueFormat: { type: 'string' },
          examples: strings,
          supportedEntities: strings,
          scopes: { type: 'array', items: { type: 'integer' } },
        },
      },
    },
    operations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          scopes: { type: 'array', items: { type: 'integer' } },
          complex: { type: 'boolean' },
          triggerHint: { type: 'string' },
          entity: { type: 'string' },
          operationFormat: { type: 'string' },
        },
      },
    },
    operatorAliases: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

@OcsController('apps/workflowengine/api/v1')
export class WorkflowCatalogueController {
  @Get('catalogue')
  @Authenticated()
  @ApiOperation({ summary: 'Entities with their events, checks with operators and value formats, operations with their scopes' })
  @ApiOcsOkResponse(CATALOGUE_SCHEMA, 'The catalogue in the OCS envelope')
  @ApiResponse({ status: 401, description: 'Not logged in (statuscode 997)' })
  catalogue(): WorkflowCatalogue {
    return buildCatalogue();
  }
}

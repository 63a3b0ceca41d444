import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { OcsController } from '../../../api/ocs/ocs-controller.decorator';
import { Authenticated } from '../../auth/access.decorators';
import { buildCatalogue, type WorkflowCatalogue } from '../workflow-catalogue';

@OcsController('apps/workflowengine/api/v1')
export class WorkflowCatalogueController {
  @Get('catalogue')
  @Authenticated()
  @ApiOperation({ summary: 'Entities with their events, checks with operators and value formats, operations with their scopes' })
  @ApiOkResponse({ description: '{entities, checks, operations, operatorAliases} in the OCS envelope' })
  @ApiResponse({ status: 401, description: 'Not logged in (statuscode 997)' })
  catalogue(): WorkflowCatalogue {
    return buildCatalogue();
  }
}

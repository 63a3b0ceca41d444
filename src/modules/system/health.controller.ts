import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../../api/access/access.decorators';
import type { ReadyReport } from './readiness';
import { ReadinessService } from './readiness.service';

@Controller()
@ApiTags('operations')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get('healthz')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  health(): { status: string } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  @ApiOperation({
    summary:
      'Readiness: the database and the blob store answer and the bootstrap administrator exists; ' +
      'the rate-limit store (Redis) is reported, not required',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok', database: 'ok', redis: 'up' } } })
  @ApiServiceUnavailableResponse({
    description: 'database or blob store unreachable, or the bootstrap administrator not created yet',
  })
  async ready(): Promise<ReadyReport> {
    return this.readiness.ready();
  }
}

import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { UnavailableError } from '../../platform/errors/domain-error';
import { rateLimitStoreStatus } from '../../platform/http/rate-limit';
import { Public } from '../auth/access.decorators';

@Controller()
@ApiTags('operations')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

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
    summary: 'Readiness: the database answers; the rate-limit store (Redis) is reported, not required',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok', database: 'ok', redis: 'up' } } })
  @ApiServiceUnavailableResponse({ description: 'database unreachable' })
  async ready(): Promise<{ status: string; database: string; redis?: string }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (error) {
      throw new UnavailableError('database unreachable', { cause: error });
    }
    // Rate limits fail open while Redis is down (counted per instance): reported, not a reason to be unready.
    const redis = rateLimitStoreStatus();
    return { status: 'ok', database: 'ok', ...(redis === 'absent' ? {} : { redis }) };
  }
}

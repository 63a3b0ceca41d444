import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { UnavailableError } from '../../platform/errors/domain-error';
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
  @ApiOperation({ summary: 'Readiness: the database answers' })
  @ApiOkResponse({ schema: { example: { status: 'ok', database: 'ok' } } })
  @ApiServiceUnavailableResponse({ description: 'database unreachable' })
  async ready(): Promise<{ status: string; database: string }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (error) {
      throw new UnavailableError('database unreachable', { cause: error });
    }
    return { status: 'ok', database: 'ok' };
  }
}

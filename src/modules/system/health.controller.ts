import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { UnavailableError } from '../../platform/errors/domain-error';
import { rateLimitStoreStatus } from '../../platform/http/rate-limit';
import { BlobStore } from '../../platform/storage/blob-store';
import { Public } from '../auth/access.decorators';
import { BootstrapAdminService } from '../identity/bootstrap-admin.service';

@Controller()
@ApiTags('operations')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly blobs: BlobStore,
    private readonly bootstrap: BootstrapAdminService,
  ) {}

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
  async ready(): Promise<{ status: string; database: string; redis?: string }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (error) {
      throw new UnavailableError('database unreachable', { cause: error });
    }
    // Uploads and downloads need the blob store (issue 36.9: S3 down, uploads answered 500 while ready).
    try {
      await this.blobs.ping();
    } catch (error) {
      throw new UnavailableError('blob store unreachable', { cause: error });
    }
    // Ready means a request with the configured admin credentials succeeds (issue 31.13): the server
    // creates the first administrator only once it listens.
    if (!(await this.bootstrap.bootstrapDone())) {
      throw new UnavailableError('bootstrap administrator not created yet');
    }
    // Rate limits fail open while Redis is down (counted per instance): reported, not a reason to be unready.
    const redis = rateLimitStoreStatus();
    return { status: 'ok', database: 'ok', ...(redis === 'absent' ? {} : { redis }) };
  }
}

import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { Public } from '../../api/access/access.decorators';

/** Prometheus metrics on the main port, for holders of `METRICS_TOKEN` (404 when not served here). */
@Controller()
@ApiTags('operations')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  @Public()
  // Not a user credential: the METRICS_TOKEN setting, as a Bearer token (issue 51.2).
  @ApiSecurity('metrics-token')
  @ApiOperation({
    summary: 'Prometheus metrics (Authorization: Bearer METRICS_TOKEN); 404 unless METRICS_TOKEN is set',
  })
  @ApiProduces('text/plain')
  @ApiResponse({ status: 200, description: 'Prometheus text format' })
  @ApiResponse({ status: 401, description: 'missing or wrong token' })
  @ApiResponse({ status: 404, description: 'not served on this port' })
  async metricsText(
    @Headers('authorization') authorization: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const access = this.metrics.allowsMainPort(authorization);
    if (access === 'disabled') {
      res.status(404).type('text/plain').send('Not Found\n');
      return;
    }
    if (access === 'unauthorized') {
      res
        .status(401)
        .setHeader('WWW-Authenticate', 'Bearer realm="metrics"')
        .type('text/plain')
        .send('Unauthorized\n');
      return;
    }
    res
      .status(200)
      .setHeader('Content-Type', this.metrics.registry.contentType)
      .send(await this.metrics.registry.metrics());
  }
}

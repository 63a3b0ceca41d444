import { Global, Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';

/** Prometheus metrics of the platform (see metrics.service.ts). */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}

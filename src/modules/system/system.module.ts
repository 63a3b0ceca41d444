import { MetricsController } from './metrics.controller';
import { Module } from '@nestjs/common';
import { CoderBuildInfoController } from './coder-buildinfo.controller';
import { GiteaVersionController } from './gitea-version.controller';
import { HealthController } from './health.controller';

/** Health, readiness, build information and version: the routes that describe the server itself. */
@Module({
  controllers: [HealthController, CoderBuildInfoController, GiteaVersionController, MetricsController],
})
export class SystemModule {}

import './system.error-codes';
import { MetricsController } from './metrics.controller';
import { Module } from '@nestjs/common';
import { CoderBuildInfoController } from './coder-buildinfo.controller';
import { CoderDeploymentController } from './coder-deployment.controller';
import { CoderIntegrationsController } from './coder-integrations.controller';
import { GiteaVersionController } from './gitea-version.controller';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';
import { SystemHealthRepository } from './system-health.repository';

/** Health, readiness, build information and version: the routes that describe the server itself. */
@Module({
  controllers: [
    HealthController,
    CoderBuildInfoController,
    CoderDeploymentController,
    CoderIntegrationsController,
    GiteaVersionController,
    MetricsController,
  ],
  providers: [ReadinessService, SystemHealthRepository],
})
export class SystemModule {}

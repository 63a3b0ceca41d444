import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SiteConfig } from './site-config.entity';
import { SiteConfigService } from './site-config.service';
import { DeploymentReports } from './deployment-reports';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SiteConfig])],
  providers: [SiteConfigService, DeploymentReports],
  exports: [SiteConfigService, DeploymentReports],
})
export class SiteConfigModule {}

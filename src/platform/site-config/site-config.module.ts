import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SiteConfig } from './site-config.entity';
import { SiteConfigService } from './site-config.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SiteConfig])],
  providers: [SiteConfigService],
  exports: [SiteConfigService],
})
export class SiteConfigModule {}

import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { RequestBodyGuard, RequestDialectGuard } from './api/body/request-body.guard';
import { FallbackExceptionFilter } from './api/dialect-exception.filter';
import { APP_ENTITIES, APP_MIGRATIONS, APP_MODULES } from './app.modules';
import { createValidationPipe } from './api/validation';
import { AuthGuard } from './modules/auth/auth.guard';
import { CacheModule } from './platform/cache/cache.module';
import type { AppConfig } from './platform/config/app-config';
import { ConfigModule } from './platform/config/config.module';
import { APP_CONFIG } from './platform/config/config.token';
import type { DatabaseRuntime } from './platform/database/database-runtime';
import { DatabaseModule } from './platform/database/database.module';
import { EventsModule } from './platform/events/events.module';
import { JobsModule } from './platform/jobs/jobs.module';
import { RealtimeModule } from './platform/realtime/realtime.module';
import { LoggingModule } from './platform/logging/logging.module';
import { RateLimitGuard, RateLimitStorageCloser, throttlerOptions } from './platform/http/rate-limit';
import { SiteConfigModule } from './platform/site-config/site-config.module';
import { StorageModule } from './platform/storage/storage.module';
import { SecretsModule } from './platform/crypto/secrets.module';
import { MetricsModule } from './platform/metrics/metrics.module';
import { ShutdownDrainModule } from './platform/lifecycle/shutdown-drain';

/** Composes the platform and the modules; the modules come from the composition root (src/app.modules.ts). */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, runtime: DatabaseRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        DatabaseModule.forRoot(runtime, { entities: APP_ENTITIES, migrations: APP_MIGRATIONS }),
        EventsModule,
        JobsModule,
        RealtimeModule,
        CacheModule,
        SiteConfigModule,
        StorageModule,
        SecretsModule,
        MetricsModule,
        ShutdownDrainModule,
        ThrottlerModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => throttlerOptions(config),
        }),
        ...APP_MODULES.flatMap((manifest) => (manifest.module ? [manifest.module] : [])),
      ],
      providers: [
        // Order matters: the route's dialect, rate limits, credentials and access, and only then the route's
        // body (read as it declares; src/api/body): nothing is read or inflated for a refused caller (#31.4).
        { provide: APP_GUARD, useClass: RequestDialectGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useExisting: AuthGuard },
        { provide: APP_GUARD, useClass: RequestBodyGuard },
        { provide: APP_FILTER, useClass: FallbackExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        RateLimitStorageCloser,
      ],
    };
  }
}

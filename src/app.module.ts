import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import { FallbackExceptionFilter } from './api/dialect-exception.filter';
import { createValidationPipe } from './api/validation';
import { AuthGuard } from './modules/auth/auth.guard';
import { AdminUsersModule } from './modules/admin-users/admin-users.module';
import { AuthModule } from './modules/auth/auth.module';
import { IdentityModule } from './modules/identity/identity.module';
import { NotificationsModule } from './modules/notifications/notifications.module';
import { SystemModule } from './modules/system/system.module';
import { WorkflowsModule } from './modules/workflows/workflows.module';
import { CacheModule } from './platform/cache/cache.module';
import type { AppConfig } from './platform/config/app-config';
import { ConfigModule } from './platform/config/config.module';
import { APP_CONFIG } from './platform/config/config.token';
import type { DatabaseRuntime } from './platform/database/database-runtime';
import { DatabaseModule } from './platform/database/database.module';
import { EventsModule } from './platform/events/events.module';
import { RealtimeModule } from './platform/realtime/realtime.module';
import { loggerOptions } from './platform/logging/logger-options';
import { RateLimitStorageCloser, throttlerOptions } from './platform/http/rate-limit';
import { SiteConfigModule } from './platform/site-config/site-config.module';

/** Composes the platform and the modules. Module issues add their module to FEATURE_MODULES. */
const FEATURE_MODULES = [SystemModule, WorkflowsModule, NotificationsModule, AdminUsersModule];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, runtime: DatabaseRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRootAsync({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => loggerOptions(config) }),
        DatabaseModule.forRoot(runtime),
        EventsModule,
        RealtimeModule,
        CacheModule,
        SiteConfigModule,
        ThrottlerModule.forRootAsync({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => throttlerOptions(config) }),
        IdentityModule,
        AuthModule,
        ...FEATURE_MODULES,
      ],
      providers: [
        // Order matters: rate limits first, then credentials and access declarations.
        { provide: APP_GUARD, useClass: ThrottlerGuard },
        { provide: APP_GUARD, useExisting: AuthGuard },
        { provide: APP_FILTER, useClass: FallbackExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        RateLimitStorageCloser,
      ],
    };
  }
}

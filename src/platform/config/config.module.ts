import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './app-config';
import { APP_CONFIG } from './config.token';

/** Provides the AppConfig that main.ts (or a test) loaded and validated before building the app. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}

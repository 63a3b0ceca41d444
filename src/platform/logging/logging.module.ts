import { Global, Module } from '@nestjs/common';
import pinoHttp, { type HttpLogger } from 'pino-http';
import { APP_CONFIG } from '../config/config.token';
import type { AppConfig } from '../config/app-config';
import { AppLogger } from './app-logger';
import { loggerOptions } from './logger-options';

/** The request logger (pino-http middleware, mounted by `createApp`) and its pino logger. */
export abstract class HttpRequestLogger {
  abstract readonly middleware: HttpLogger;
}

/**
 * Logging: one pino logger for the process, written by the request log (pino-http) and by Nest's
 * `Logger` through `AppLogger`. (A thin module of our own: nestjs-pino 5, the adapter for Nest 12,
 * requires Node 22.12, and devplane supports Node 20.19; see docs/DECISIONS.md.)
 */
@Global()
@Module({
  providers: [
    {
      provide: HttpRequestLogger,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): HttpRequestLogger => ({ middleware: pinoHttp(loggerOptions(config)) }),
    },
    {
      provide: AppLogger,
      inject: [HttpRequestLogger],
      useFactory: (http: HttpRequestLogger) => new AppLogger(http.middleware.logger),
    },
  ],
  exports: [HttpRequestLogger, AppLogger],
})
export class LoggingModule {}

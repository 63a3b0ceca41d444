import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import { json, urlencoded, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { dialectOfPath } from './api/dialect';
import { rejectNulBytes } from './api/reject-nul-bytes';
import { wellFormedStrings } from './api/well-formed-strings';
import { sendError } from './api/send-error';
import { setupOpenApi } from './api/openapi';
import type { AppConfig } from './platform/config/app-config';
import { APP_CONFIG } from './platform/config/config.token';
import { RealtimeWsAdapter } from './platform/realtime/realtime-ws.adapter';
import type { DatabaseRuntime } from './platform/database/database-runtime';

export interface CreateAppOptions {
  /** Buffer logs until the pino logger is ready (off in tests to keep failures visible). */
  bufferLogs?: boolean;
  /** Extra modules beside AppModule (tests: probe gateways and routes). */
  imports?: (Type | DynamicModule)[];
}

/**
 * Builds the application (not listening): the one place main.ts, the CLI, the OpenAPI check,
 * the benchmark and the tests get their app from, so they all run the same stack.
 */
export async function createApp(
  config: AppConfig,
  runtime: DatabaseRuntime,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const root = AppModule.forRoot(config, runtime);
  const module: DynamicModule = options.imports?.length ? { ...root, imports: [...(root.imports ?? []), ...options.imports] } : root;
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bufferLogs: options.bufferLogs ?? true,
    bodyParser: false,
  });
  configureApp(app);
  await app.init();
  return app;
}

function configureApp(app: NestExpressApplication): void {
  app.useLogger(app.get(Logger));
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.use(
    helmet({
      contentSecurityPolicy: false, // Swagger UI at /docs needs inline scripts; the API serves JSON.
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use(cookieParser());
  // Body parsing failures (bad JSON, too large) are rendered here in the dialect's shape.
  const config = app.get<AppConfig>(APP_CONFIG);
  for (const parser of [
    json({ limit: '4mb', type: ['application/json', 'application/*+json'] }),
    urlencoded({ limit: '4mb', extended: true }),
  ]) {
    app.use((req: Request, res: Response, next: NextFunction) =>
      parser(req, res, (error?: unknown) => (error ? sendError(dialectOfPath(req.path), error, req, res, config) : next())),
    );
  }
  app.use(rejectNulBytes((error, req, res) => sendError(dialectOfPath(req.path), error, req, res, config)));
  app.use(wellFormedStrings());
  app.useWebSocketAdapter(new RealtimeWsAdapter(app));
  setupOpenApi(app as INestApplication);
}

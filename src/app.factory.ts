import { requestContextMiddleware } from './platform/http/request-context';
import { MetricsService } from './platform/metrics/metrics.service';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import express from 'express';
import helmet from 'helmet';
import { AppModule } from './app.module';
import { dialectOfPath } from './api/dialect';
import { rejectNulBytes } from './api/reject-nul-bytes';
import { sendError } from './api/send-error';
import { setupOpenApi } from './api/openapi';
import type { AppConfig } from './platform/config/app-config';
import { APP_CONFIG } from './platform/config/config.token';
import { RealtimeWsAdapter } from './platform/realtime/realtime-ws.adapter';
import type { DatabaseRuntime } from './platform/database/database-runtime';
import { trustProxySetting } from './platform/http/trusted-proxies';
import { IndexedExpressAdapter } from './platform/http/route-index';
import { apiSwaggerRedirect, changePasswordPage, landingPage } from './platform/http/landing-page';
import { siteDirectory, siteDirFromEnv } from './platform/http/site-directory';
import { AppLogger } from './platform/logging/app-logger';
import { HttpRequestLogger } from './platform/logging/logging.module';

export interface CreateAppOptions {
  /** Buffer logs until the pino logger is ready (off in tests to keep failures visible). */
  bufferLogs?: boolean;
  /** Extra modules composed next to AppModule's (tests mount fixture controllers with them). */
  modules?: DynamicModule['imports'];
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
  // Routing is case-sensitive, as in Gitea and Coder (`/API/V2/...` is 404): Express reads the setting
  // when it creates its router, so it is set on an instance of our own before Nest registers anything.
  const server = express();
  server.set('case sensitive routing', true);
  const root = AppModule.forRoot(config, runtime);
  if (options.modules?.length) root.imports = [...(root.imports ?? []), ...options.modules];
  // Routes are grouped by their first two path segments as Nest registers them (route-index.ts).
  const adapter = new IndexedExpressAdapter(server);
  const app = await NestFactory.create<NestExpressApplication>(root, adapter, {
    bufferLogs: options.bufferLogs ?? true,
    bodyParser: false,
    // A module that fails to start (a malformed SECRETS_KEY, an unreachable bucket) rejects this call
    // instead of Nest logging it in its own coloured format and exiting: the caller prints one line
    // naming the setting (main.ts). Buffered start-up logs go out through pino once it is in place.
    abortOnError: false,
    autoFlushLogs: false,
  });
  configureApp(app, adapter);
  app.flushLogs();
  await app.init();
  return app;
}

function configureApp(app: NestExpressApplication, adapter: IndexedExpressAdapter): void {
  app.useLogger(app.get(AppLogger));
  app.set('trust proxy', trustProxySetting(app.get<AppConfig>(APP_CONFIG).trustedProxies));
  app.disable('x-powered-by');
  app.use(
    helmet({
      contentSecurityPolicy: false, // Swagger UI at /docs needs inline scripts; the API serves JSON.
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use(cookieParser());
  app.use(requestContextMiddleware);
  // Requests are observed only when metrics are served (the observation costs ~10 % of a cached read).
  const metrics = app.get(MetricsService);
  if (metrics.enabled) app.use(metrics.middleware);
  // Request bodies are read per route, as the route declares, after the rate limit and authentication
  // (src/api/body, RequestBodyGuard; guard order in app.module.ts); only the
  // URL is checked here, before routing, so its failures take the dialect of the path.
  const config = app.get<AppConfig>(APP_CONFIG);
  app.use(rejectNulBytes((error, req, res) => sendError(dialectOfPath(req.path), error, req, res, config)));
  app.use(app.get(HttpRequestLogger).middleware);
  // The landing page the banner points at, and the docs link of Gitea error bodies (issue 36.2).
  // SITE_DIR: a built Coder-compatible web UI at `/` instead (issue 48 item 2).
  const siteDir = siteDirFromEnv(config.env);
  const site = siteDir
    ? siteDirectory(siteDir, { secureCookies: config.publicUrl.startsWith('https:') })
    : undefined;
  adapter.get('/', site ? site.index : landingPage(config.publicUrl));
  adapter.get('/api/swagger', apiSwaggerRedirect(config.publicUrl));
  adapter.get('/user/change_password', changePasswordPage(config.publicUrl));
  app.useWebSocketAdapter(new RealtimeWsAdapter(app));
  // Swagger UI behind every API route: API requests never try the documentation's paths (issue 10 item 14).
  adapter.deferUntilRoutes(() => {
    setupOpenApi(app as INestApplication);
    // The site's pages and files behind every route: it never shadows one.
    if (site) adapter.use(site.fallback);
  });
}

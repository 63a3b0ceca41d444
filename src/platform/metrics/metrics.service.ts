import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { OnDomainEvent } from '../events/event-bus.service';
import type { PackageEventPayload } from '../events/subject-events';
import { RealtimeHub } from '../realtime/realtime-hub.service';

/** How a domain operation ended, as counted. */
export type MetricResult = 'success' | 'failure';

/** How long an aggregate read from the database on scrape is reused (blob bytes: a sum over tables). */
const SLOW_GAUGE_CACHE_MS = 60_000;

/** One read per scrape at most (two families share the jobs query); reused for `ttlMs`. */
function cached<T>(ttlMs: number, read: () => Promise<T>): () => Promise<T> {
  let value: { at: number; promise: Promise<T> } | undefined;
  return () => {
    if (!value || Date.now() - value.at > ttlMs) {
      const promise = read();
      value = { at: Date.now(), promise };
      promise.catch(() => (value = undefined));
    }
    return value.promise;
  };
}

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Prometheus metrics (prom-client): requests per route and status with latency histograms, durable
 * job queue depths, realtime (WebSocket / SSE) subscribers, database pool use, and the process's
 * defaults. Served at `GET /metrics` with `METRICS_TOKEN` (Bearer), or on its own port
 * (`METRICS_PORT`, then not on the main port); off when neither is set.
 *
 * Domain families (issue 51.4, docs/METRICS.md): modules count through the one-line methods
 * below (`gitOperation`, `packageOperation`, `workspaceBuild`, `aiGatewayRequest`, `login`,
 * `webhookDelivery`); gauges that describe stored state (connected agents, job queue depth and age,
 * blob bytes) are read from the database on scrape with one aggregate query each.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private server?: Server;
  private readonly git: Counter<'operation' | 'protocol' | 'result'>;
  private readonly packages: Counter<'operation' | 'type'>;
  private readonly builds: Counter<'transition' | 'status'>;
  private readonly aiRequests: Counter<'provider' | 'model' | 'status'>;
  private readonly aiTokens: Counter<'provider' | 'model' | 'direction'>;
  private readonly logins: Counter<'method' | 'result'>;
  private readonly webhooks: Counter<'kind' | 'result'>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly hub: RealtimeHub,
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: 'devplane_' });
    this.requests = new Counter({
      name: 'devplane_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.durations = new Histogram({
      name: 'devplane_http_request_duration_seconds',
      help: 'HTTP request latency by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const pool = () => (this.dataSource.driver as unknown as { master?: PgPool }).master;
    new Gauge({
      name: 'devplane_db_pool_connections',
      help: 'Database pool connections by state',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const current = pool();
        if (!current) return;
        this.set({ state: 'total' }, current.totalCount);
        this.set({ state: 'idle' }, current.idleCount);
        this.set({ state: 'waiting' }, current.waitingCount);
      },
    });
    const realtime = this.hub;
    new Gauge({
      name: 'devplane_realtime_subscribers',
      help: 'WebSocket and SSE subscribers on this instance',
      registers: [this.registry],
      collect() {
        this.set(realtime.subscriberCount());
      },
    });
    const database = this.dataSource;
    new Gauge({
      name: 'devplane_jobs',
      help: 'Durable jobs by type (queue) and status',
      labelNames: ['queue', 'status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const rows = (await database
          .query(`SELECT type AS queue, status, count(*)::int AS n FROM jobs GROUP BY type, status`)
          .catch(() => [])) as { queue: string; status: string; n: number }[];
        for (const row of rows) this.set({ queue: row.queue, status: row.status }, row.n);
      },
    });
    this.git = new Counter({
      name: 'devplane_git_operations_total',
      help: 'git pushes (receive-pack) and clones/fetches (upload-pack advertisements) by protocol and result',
      labelNames: ['operation', 'protocol', 'result'],
      registers: [this.registry],
    });
    this.packages = new Counter({
      name: 'devplane_package_operations_total',
      help: 'Package publishes (a version stored) and file downloads (bytes sent) by package type',
      labelNames: ['operation', 'type'],
      registers: [this.registry],
    });
    this.builds = new Counter({
      name: 'devplane_workspace_builds_total',
      help: 'Workspace builds finished, by transition (start, stop, delete) and job status',
      labelNames: ['transition', 'status'],
      registers: [this.registry],
    });
    this.aiRequests = new Counter({
      name: 'devplane_ai_gateway_requests_total',
      help: 'AI gateway requests relayed to a provider, by provider, model and upstream HTTP status',
      labelNames: ['provider', 'model', 'status'],
      registers: [this.registry],
    });
    this.aiTokens = new Counter({
      name: 'devplane_ai_gateway_tokens_total',
      help: 'Tokens the providers reported for AI gateway requests, by provider, model and direction',
      labelNames: ['provider', 'model', 'direction'],
      registers: [this.registry],
    });
    this.logins = new Counter({
      name: 'devplane_logins_total',
      help: 'Sign-ins by method (password, oidc) and result',
      labelNames: ['method', 'result'],
      registers: [this.registry],
    });
    this.webhooks = new Counter({
      name: 'devplane_webhook_deliveries_total',
      help: 'Webhook delivery attempts by kind (workflow, repository) and result',
      labelNames: ['kind', 'result'],
      registers: [this.registry],
    });
    const jobQueues = cached(
      1_000,
      async () =>
        (await database
          .query(
            `SELECT type, count(*)::int AS n, coalesce(extract(epoch FROM now() - min(run_at)), 0)::float8 AS age
             FROM jobs WHERE status = 'pending' AND run_at <= now() GROUP BY type`,
          )
          .catch(() => [])) as { type: string; n: number; age: number }[],
    );
    new Gauge({
      name: 'devplane_job_queue_depth',
      help: 'Durable jobs due and waiting for a worker, by type',
      labelNames: ['type'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await jobQueues()) this.set({ type: row.type }, row.n);
      },
    });
    new Gauge({
      name: 'devplane_job_queue_oldest_age_seconds',
      help: 'How long the oldest due job of each type has waited for a worker',
      labelNames: ['type'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const row of await jobQueues()) this.set({ type: row.type }, Math.max(0, Number(row.age)));
      },
    });
    const disconnectMs = Number(config.env.AGENT_DISCONNECT_TIMEOUT_MS) || 60_000;
    new Gauge({
      name: 'devplane_workspace_agents_connected',
      help: 'Workspace agents heard from within AGENT_DISCONNECT_TIMEOUT_MS (all instances)',
      registers: [this.registry],
      async collect() {
        const rows = (await database
          .query(
            `SELECT count(*)::int AS n FROM workspace_agents
              WHERE first_connected_at IS NOT NULL AND last_connected_at > now() - make_interval(secs => $1)
                AND (disconnected_at IS NULL OR disconnected_at < last_connected_at)`,
            [disconnectMs / 1000],
          )
          .catch(() => [{ n: 0 }])) as { n: number }[];
        this.set(rows[0]?.n ?? 0);
      },
    });
    const blobBytes = cached(
      SLOW_GAUGE_CACHE_MS,
      async () =>
        (await database
          .query(
            `SELECT 'attachments' AS kind, coalesce(sum(size), 0)::float8 AS bytes FROM attachments
           UNION ALL SELECT 'packages', coalesce(sum(size), 0)::float8 FROM package_blobs
           UNION ALL SELECT 'chat_files', coalesce(sum(size_bytes), 0)::float8 FROM chat_files`,
          )
          .catch(() => [])) as { kind: string; bytes: number }[],
    );
    new Gauge({
      name: 'devplane_blob_store_bytes',
      help: `Bytes in the blob store by kind, from the rows that reference them (recomputed at most every ${SLOW_GAUGE_CACHE_MS / 1000} s)`,
      labelNames: ['kind'],
      registers: [this.registry],
      async collect() {
        for (const row of await blobBytes()) this.set({ kind: row.kind }, Number(row.bytes));
      },
    });
  }

  /** A git push (`push`: receive-pack ran) or clone/fetch (`fetch`: upload-pack advertised), and whether git succeeded. */
  gitOperation(operation: 'push' | 'fetch', protocol: 'http' | 'ssh', ok: boolean): void {
    this.git.inc({ operation, protocol, result: ok ? 'success' : 'failure' });
  }

  @OnDomainEvent('package.published')
  onPackagePublished(payload: PackageEventPayload): void {
    this.packageOperation('publish', payload.type);
  }

  /** A package version published, or a package file's bytes sent (`type`: npm, generic, ...). */
  packageOperation(operation: 'publish' | 'download', type: string): void {
    this.packages.inc({ operation, type });
  }

  /** A workspace build's job finished (`status`: succeeded, failed, canceled). */
  workspaceBuild(transition: string, status: string): void {
    this.builds.inc({ transition, status });
  }

  /** One AI gateway request relayed upstream, with the tokens the provider reported (when it did). */
  aiGatewayRequest(
    provider: string,
    model: string,
    status: number | string,
    tokens: { input?: number; output?: number } = {},
  ): void {
    const labels = { provider, model: model || 'unknown' };
    this.aiRequests.inc({ ...labels, status: String(status) });
    if (tokens.input) this.aiTokens.inc({ ...labels, direction: 'input' }, tokens.input);
    if (tokens.output) this.aiTokens.inc({ ...labels, direction: 'output' }, tokens.output);
  }

  /** A sign-in attempt (`password`, `oidc`) and its result. */
  login(method: 'password' | 'oidc', result: MetricResult): void {
    this.logins.inc({ method, result });
  }

  /** A webhook delivery attempt (`workflow` rules, `repository` webhooks): 2xx = success. */
  webhookDelivery(kind: 'workflow' | 'repository', result: MetricResult): void {
    this.webhooks.inc({ kind, result });
  }

  /** Whether metrics are served at all (`METRICS_TOKEN` or `METRICS_PORT`): off, requests are not observed. */
  get enabled(): boolean {
    return this.config.metrics.port !== null || this.config.metrics.token !== null;
  }

  /** Label children by method, route and status: a request's observation does no label hashing. */
  private readonly children = new Map<
    string,
    { count: { inc(): void }; time: { observe(value: number): void } }
  >();

  /** Express middleware: one observation per finished request, labelled by the matched route pattern. */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
      const status = String(res.statusCode);
      const key = `${req.method} ${route} ${status}`;
      let child = this.children.get(key);
      if (!child) {
        child = {
          count: this.requests.labels(req.method, route, status),
          time: this.durations.labels(req.method, route, status),
        };
        this.children.set(key, child);
      }
      child.count.inc();
      child.time.observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  /** Whether `GET /metrics` on the main port answers this request (a configured token, presented). */
  allowsMainPort(authorization: string | undefined): 'ok' | 'unauthorized' | 'disabled' {
    if (this.config.metrics.port !== null || !this.config.metrics.token) return 'disabled';
    const expected = Buffer.from(`Bearer ${this.config.metrics.token}`);
    const given = Buffer.from(authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'unauthorized';
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metrics.port;
    if (port === null) return;
    this.server = createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'Content-Type': this.registry.contentType }).end(text))
        .catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve) => this.server!.listen(port, this.config.metrics.host, resolve));
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  metricsPort(): number | null {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : null;
  }
}

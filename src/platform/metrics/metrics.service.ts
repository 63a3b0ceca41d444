import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { RealtimeHub } from '../realtime/realtime-hub.service';

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
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private server?: Server;

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

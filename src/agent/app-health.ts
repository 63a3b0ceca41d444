/** An app of the manifest with Coder's healthcheck (`interval` seconds; `threshold` failures in a row). */
export interface HealthcheckedApp {
  id: string;
  healthcheck?: { url: string; interval: number; threshold: number };
}

export type AppHealth = 'healthy' | 'unhealthy';

/**
 * Coder's app healthchecks, run by the agent inside the workspace (its network namespace): every
 * `interval` seconds a GET of the healthcheck URL; an answer below 500 within the interval (at most
 * 10 s) is healthy at once, `threshold` failures in a row are unhealthy. Apps without a healthcheck are
 * not probed (the server shows `disabled`); until the first verdict the server shows `initializing`.
 * Changes are reported in batches (`report`), retried on the next probe when the report failed.
 */
export class AppHealthRunner {
  private timers: NodeJS.Timeout[] = [];
  private readonly reported = new Map<string, AppHealth>();
  private readonly current = new Map<string, AppHealth>();
  private readonly failures = new Map<string, number>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly report: (healths: Record<string, AppHealth>) => Promise<void>,
    private readonly log: (message: string) => void,
  ) {}

  start(apps: HealthcheckedApp[]): void {
    this.stop();
    for (const app of apps) {
      const check = app.healthcheck;
      if (!check?.url) continue;
      const intervalMs = Math.max(1, check.interval || 1) * 1000;
      const threshold = Math.max(1, check.threshold || 1);
      let running = false;
      const probe = async (): Promise<void> => {
        if (running) return;
        running = true;
        try {
          let ok = false;
          try {
            const response = await fetch(check.url, {
              signal: AbortSignal.timeout(Math.min(intervalMs, 10_000)),
            });
            await response.body?.cancel();
            ok = response.status < 500;
          } catch {
            // unreachable or timed out
          }
          const failures = ok ? 0 : (this.failures.get(app.id) ?? 0) + 1;
          this.failures.set(app.id, failures);
          if (ok) this.current.set(app.id, 'healthy');
          else if (failures >= threshold) this.current.set(app.id, 'unhealthy');
          await this.flush();
        } finally {
          running = false;
        }
      };
      void probe();
      const timer = setInterval(() => void probe(), intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  private flush(): Promise<void> {
    this.flushing ??= (async () => {
      const changed: Record<string, AppHealth> = {};
      for (const [id, health] of this.current) if (this.reported.get(id) !== health) changed[id] = health;
      if (Object.keys(changed).length === 0) return;
      try {
        await this.report(changed);
        for (const [id, health] of Object.entries(changed)) this.reported.set(id, health);
      } catch (error) {
        this.log(`app health report failed: ${String(error)}`);
      }
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}

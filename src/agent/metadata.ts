import { launch } from '../provisioner/sandbox/launcher';

export interface MetadataItem {
  key: string;
  display_name: string;
  script: string;
  interval: number;
  timeout: number;
}

export interface MetadataResult {
  key: string;
  value: string;
  error: string;
  collected_at: string;
}

const OUTPUT_LIMIT = 10 * 1024;

/** Runs one script (`sh -c`, in the workspace directory) and collects its trimmed output, or why it failed. */
export function collect(
  item: MetadataItem,
  directory: string,
  env: Record<string, string>,
): Promise<MetadataResult> {
  return new Promise((resolve) => {
    const child = launch({
      command: 'sh',
      args: ['-c', item.script],
      cwd: directory,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (out.length < OUTPUT_LIMIT) out += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (err.length < OUTPUT_LIMIT) err += chunk.toString('utf8');
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, item.timeout * 1000);
    const done = (error: string): void => {
      clearTimeout(timer);
      resolve({
        key: item.key,
        value: out.trim().slice(0, OUTPUT_LIMIT),
        error: error.slice(0, OUTPUT_LIMIT),
        collected_at: new Date().toISOString(),
      });
    };
    child.once('close', (code) => {
      if (timedOut) done(`script timed out after ${item.timeout}s`);
      else if (code !== 0) done(err.trim() || `exit status ${code}`);
      else done('');
    });
    child.once('error', (error) => done(error.message));
  });
}

/**
 * The template's metadata items (Coder's agent metadata): each script runs every `interval` seconds
 * (one run at a time per item), killed after `timeout` seconds; the results are reported in
 * batches (`POST /workspaceagents/me/metadata`).
 */
export class MetadataRunner {
  private timers: NodeJS.Timeout[] = [];
  private pending: MetadataResult[] = [];
  private flushing = false;

  constructor(
    private readonly directory: string,
    private readonly env: () => Record<string, string>,
    private readonly report: (results: MetadataResult[]) => Promise<void>,
    private readonly log: (message: string) => void,
  ) {}

  start(items: MetadataItem[]): void {
    this.stop();
    for (const item of items) {
      let running = false;
      const run = (): void => {
        if (running) return;
        running = true;
        void collect(item, this.directory, this.env())
          .then((result) => {
            // Every collection is reported (its time is the result's age), batched while a report is on its way.
            this.pending = this.pending.filter((entry) => entry.key !== item.key).concat(result);
            void this.flush();
          })
          .finally(() => (running = false));
      };
      run();
      this.timers.push(setInterval(run, item.interval * 1000));
    }
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        await this.report(batch).catch((error: unknown) =>
          this.log(`metadata report failed: ${String(error)}`),
        );
      }
    } finally {
      this.flushing = false;
    }
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}

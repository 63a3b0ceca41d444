import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isUuid } from '../../platform/text/uuid';

/**
 * The workspace directory's size (issue 53 item 3): the host's file systems have no per-directory quota a
 * plain Linux host can count on, so the provisioner measures each running workspace every interval and stops
 * the one beyond `WORKSPACE_DISK_LIMIT_MB` (its processes killed at once, then a `stop` build through the
 * daemon protocol). Measured with coreutils `du -s -x -B1` as root: `du` never follows a link the workspace
 * made (it walks physically) and stays on the workspace's file system (`-x`). One measurement at a time, at
 * the lowest CPU and I/O priority, so a huge tree slows the next check, not the server.
 */
export interface DiskWatchOptions {
  workspacesDir: string;
  /** The provisioner's state directory: a workspace with a live agent has `agent.pid` there. */
  stateDir: string;
  limitBytes: number;
  intervalMs: number;
  /** Whether the workspace's agent runs (the provisioner's own check of its pid). */
  running: (workspaceId: string) => boolean;
  /** Called once per check that found the workspace beyond the limit. */
  onOver: (workspaceId: string, usedBytes: number) => Promise<void>;
  /** For tests: the measurement (default `du`). */
  measure?: (dir: string) => Promise<number | null>;
}

/** Bytes a directory holds on disk (`du -s -x -B1`), null when it cannot be measured. */
export function diskUsage(dir: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn('nice', ['-n', '19', 'du', '-s', '-x', '-B1', '--', dir], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', () => resolve(null));
    // A file removed while `du` walks makes it exit 1 with a total all the same.
    child.once('exit', () => {
      const bytes = Number.parseInt(out.split('\t')[0] ?? '', 10);
      resolve(Number.isFinite(bytes) ? bytes : null);
    });
  });
}

export class DiskWatch {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly options: DiskWatchOptions) {}

  start(): void {
    if (this.timer || this.options.limitBytes <= 0) return;
    this.timer = setInterval(() => {
      this.checking ??= this.check()
        .then(() => undefined)
        .catch(() => undefined)
        .finally(() => (this.checking = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  /** One pass over the running workspaces; the ones beyond the limit are handed to `onOver`. */
  async check(): Promise<string[]> {
    const over: string[] = [];
    if (!existsSync(this.options.stateDir)) return over;
    for (const id of readdirSync(this.options.stateDir)) {
      if (!isUuid(id) || !this.options.running(id)) continue;
      const used = await (this.options.measure ?? diskUsage)(path.join(this.options.workspacesDir, id));
      if (used === null || used <= this.options.limitBytes) continue;
      over.push(id);
      await this.options.onOver(id, used).catch(() => undefined);
    }
    return over;
  }
}

import { Injectable } from '@nestjs/common';

/**
 * Facts about the deployment that a module owns and a describing route reads (issue 48 item 3: Coder's
 * `/debug/health` and `/deployment/stats`), without the reader importing the owner: the owner registers
 * a named report at start (`onModuleInit`), the reader asks for it by name and gets `undefined` when no
 * module provides it.
 */
export interface DeploymentReportMap {
  /** The provisioner daemons every organization may use (Coder's `codersdk.ProvisionerDaemon`). */
  provisioner_daemons: unknown[];
  /** Workspaces by the status of their latest build. */
  workspace_stats: { pending: number; building: number; running: number; failed: number; stopped: number };
}

type Report<K extends keyof DeploymentReportMap> = () => Promise<DeploymentReportMap[K]>;

@Injectable()
export class DeploymentReports {
  private readonly reports = new Map<string, () => Promise<unknown>>();

  register<K extends keyof DeploymentReportMap>(name: K, report: Report<K>): void {
    this.reports.set(name, report);
  }

  async read<K extends keyof DeploymentReportMap>(name: K): Promise<DeploymentReportMap[K] | undefined> {
    const report = this.reports.get(name);
    return report ? ((await report()) as DeploymentReportMap[K]) : undefined;
  }
}

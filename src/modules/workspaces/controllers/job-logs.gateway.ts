import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import type { Principal } from '../../../api/access/principal';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../workspaces.config';
import { WorkspacesService } from '../workspaces.service';
import { CoderGateway, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const BUILD_LOGS_PATH = '/api/v2/workspacebuilds/:workspacebuild/logs';
export const VERSION_LOGS_PATH = '/api/v2/templateversions/:templateversion/logs';

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

interface Follow {
  jobId: string;
  after: number;
}

const FOLLOW = Symbol('devplane:job-log-follow');

/** `after=` as Coder reads it (an integer log id, negative = from the start; the lines after it are sent). */
function parseAfter(url: URL): number {
  const text = url.searchParams.get('after');
  if (text === null || text === '') return 0;
  const after = /^-?\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(after))
    throw new InvalidError('Query parameters have invalid values.', {
      fields: [{ field: 'after', detail: 'must be an integer' }],
    });
  // Any int64 as Coder reads it: a negative id (the UI's `after=-1`) is "from the start".
  return Math.max(after, 0);
}

/**
 * Coder's `?follow=true` log stream of a provisioner job (issue 33.5): the WebSocket sends every
 * stored line after `after=` as a ProvisionerJobLog JSON text frame, then each new line, and closes
 * normally once the job reached a terminal state and its last lines went out. Lines are read from
 * the table every CODER_LOG_FOLLOW_POLL_MS (the provisioner appends them on any instance).
 */
abstract class JobLogsGateway implements OnGatewayConnection, OnModuleDestroy, UpgradePrecheck {
  private readonly logger = new Logger('JobLogsGateway');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly pollMs: number;

  constructor(
    protected readonly workspaces: WorkspacesService,
    config: WorkspacesConfig,
  ) {
    this.pollMs = config.logFollowPollMs;
  }

  protected abstract jobOf(principal: Principal, id: string): Promise<string>;
  protected abstract readonly param: string;

  onModuleDestroy(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  async precheckUpgrade(req: IncomingMessage, url: URL, context?: unknown): Promise<void> {
    const id = upgradePathParams(req)[this.param] ?? '';
    if (!isUuid(id)) throw new NotFoundError('Resource not found or you do not have access to this resource');
    const after = parseAfter(url);
    const jobId = await this.jobOf(requireGatewayUser(context), id);
    (req as unknown as Record<symbol, Follow>)[FOLLOW] = { jobId, after };
  }

  handleConnection(_socket: WebSocket, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const follow = (req as unknown as Record<symbol, Follow | undefined>)[FOLLOW];
    if (!connection || !follow) return;
    let after = follow.after;
    let timer: NodeJS.Timeout | undefined;
    let closed = false;
    connection.onClose(() => {
      closed = true;
      if (timer) {
        clearTimeout(timer);
        this.timers.delete(timer);
      }
    });
    const tick = async (): Promise<void> => {
      if (closed) return;
      // Read the status first: lines written before a terminal status are all read below.
      const status = await this.workspaces.jobStatus(follow.jobId);
      const logs = await this.workspaces.buildLogs(follow.jobId, after);
      for (const log of logs) {
        after = log.id;
        connection.send(JSON.stringify({ ...log, created_at: new Date(log.created_at).toISOString() }));
      }
      if (status === undefined || TERMINAL.has(status)) {
        connection.close(1000, '');
        return;
      }
      if (closed) return;
      timer = setTimeout(() => {
        if (timer) this.timers.delete(timer);
        void run();
      }, this.pollMs);
      this.timers.add(timer);
    };
    const run = (): Promise<void> =>
      tick().catch((error: unknown) => {
        this.logger.warn({ err: error, job: follow.jobId }, 'job log stream failed');
        connection.close(1011, 'internal error');
      });
    void run();
  }
}

/** `GET /api/v2/workspacebuilds/{id}/logs?follow=true`. */
@CoderGateway(BUILD_LOGS_PATH, { tokenScope: { type: 'workspace', action: 'read' } })
export class BuildLogsGateway extends JobLogsGateway {
  protected readonly param = 'workspacebuild';

  constructor(workspaces: WorkspacesService, @Inject(WORKSPACES_CONFIG) config: WorkspacesConfig) {
    super(workspaces, config);
  }

  protected async jobOf(principal: Principal, id: string): Promise<string> {
    return (await this.workspaces.requireBuild(principal, id)).job_id;
  }
}

/** `GET /api/v2/templateversions/{id}/logs?follow=true`. */
@CoderGateway(VERSION_LOGS_PATH, { tokenScope: { type: 'template', action: 'read' } })
export class VersionLogsGateway extends JobLogsGateway {
  protected readonly param = 'templateversion';

  constructor(workspaces: WorkspacesService, @Inject(WORKSPACES_CONFIG) config: WorkspacesConfig) {
    super(workspaces, config);
  }

  protected async jobOf(principal: Principal, id: string): Promise<string> {
    return (await this.workspaces.requireVersion(principal, id)).jobId;
  }
}

import { Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { MetricsService } from '../../../platform/metrics/metrics.service';
import { gitEnv } from './run-git';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

/** A `Git-Protocol` header value git may be given (`version=2`, `version=2:object-format=sha1`). */
function protocolEnv(header: string | undefined): NodeJS.ProcessEnv {
  return header && /^[A-Za-z0-9=:._-]{1,256}$/.test(header) ? { GIT_PROTOCOL: header } : {};
}

function pktLine(text: string): string {
  return `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
}

/**
 * git's smart HTTP protocol through the git CLI (`upload-pack`/`receive-pack --stateless-rpc`), both
 * directions streamed: the request body goes to git's stdin and git's stdout to the response as they
 * come, so no pack is held in memory. Protocol v2 is negotiated through the `Git-Protocol` header.
 */
@Injectable()
export class SmartHttpService {
  private readonly logger = new Logger(SmartHttpService.name);

  constructor(private readonly metrics: MetricsService) {}

  /** `GET info/refs?service=...`: the ref advertisement. */
  async advertise(
    gitDir: string,
    service: GitService,
    gitProtocol: string | undefined,
    res: Response,
    extraArgs: string[] = [],
  ): Promise<void> {
    const env = protocolEnv(gitProtocol);
    res.status(200);
    res.setHeader('Content-Type', `application/x-${service}-advertisement`);
    res.setHeader('Cache-Control', 'no-cache, max-age=0, must-revalidate');
    res.setHeader('Expires', 'Fri, 01 Jan 1980 00:00:00 GMT');
    res.setHeader('Pragma', 'no-cache');
    // Version 2 clients get git's capability advertisement as it is; older ones the service header first.
    if (!env.GIT_PROTOCOL?.includes('version=2')) res.write(`${pktLine(`# service=${service}\n`)}0000`);
    const ok = await this.run(
      [...extraArgs, service.slice(4), '--stateless-rpc', '--advertise-refs', gitDir],
      env,
      undefined,
      res,
    );
    // A clone, fetch or pull starts with the upload-pack advertisement: one count each.
    if (service === 'git-upload-pack') this.metrics.gitOperation('fetch', 'http', ok);
  }

  /** `POST git-upload-pack` / `POST git-receive-pack`: one stateless RPC round. */
  async rpc(
    gitDir: string,
    service: GitService,
    body: Readable,
    gitProtocol: string | undefined,
    res: Response,
    extra: { args?: string[]; env?: NodeJS.ProcessEnv } = {},
  ): Promise<void> {
    res.status(200);
    res.setHeader('Content-Type', `application/x-${service}-result`);
    res.setHeader('Cache-Control', 'no-cache, max-age=0, must-revalidate');
    const ok = await this.run(
      [...(extra.args ?? []), service.slice(4), '--stateless-rpc', gitDir],
      { ...protocolEnv(gitProtocol), ...extra.env },
      body,
      res,
    );
    if (service === 'git-receive-pack') this.metrics.gitOperation('push', 'http', ok);
  }

  private run(
    args: string[],
    env: NodeJS.ProcessEnv,
    input: Readable | undefined,
    res: Response,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      const child = spawn('git', args, { env: gitEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString('utf8');
      });
      // A client that hangs up stops git (a half-received push leaves no refs moved: git updates refs last).
      const onClose = () => {
        if (child.exitCode === null) child.kill('SIGTERM');
      };
      res.on('close', onClose);
      child.stdout.pipe(res, { end: false });
      if (input) {
        input.on('error', (error) => {
          this.logger.warn({ err: error.message }, 'git request body failed');
          child.stdin.destroy();
          child.kill('SIGTERM');
        });
        child.stdin.on('error', () => undefined);
        input.pipe(child.stdin);
      } else {
        child.stdin.end();
      }
      child.on('error', (error) => {
        this.logger.error({ err: error }, 'git could not be started');
        res.destroy();
        resolve(false);
      });
      child.on('close', (code) => {
        res.off('close', onClose);
        if (code !== 0 && stderr)
          this.logger.warn(
            { code, stderr: stderr.trim().slice(0, 500), command: args.find((a) => !a.startsWith('-')) },
            'git exited with an error',
          );
        // git reports its own failures in the stream (report-status, ERR packets); end it either way.
        res.end();
        resolve(code === 0);
      });
    });
  }
}

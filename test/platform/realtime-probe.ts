import { Get, Module, Req, Res } from '@nestjs/common';
import { type OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { Request, Response } from 'express';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { CoderController } from '../../src/api/coder/coder-controller.decorator';
import { Authenticated, CurrentPrincipal, Public } from '../../src/api/access/access.decorators';
import type { Principal } from '../../src/api/access/principal';
import { realtimeIdentity } from '../../src/modules/auth/realtime-access.service';
import { upgradedConnection } from '../../src/platform/realtime/realtime-gateways.service';
import { RealtimeHub } from '../../src/platform/realtime/realtime-hub.service';
import { realtimeSubject } from '../../src/platform/realtime/realtime-subjects';

declare module '../../src/platform/realtime/realtime-subjects' {
  interface RealtimeSubjects {
    /** Test subjects (realtime.e2e-spec, the probe gateway). */
    test: unknown;
    probe: unknown;
  }
}
import type { SseConnection } from '../../src/platform/realtime/sse-connection';
import { SseStreams } from '../../src/platform/realtime/sse-streams.service';
import type { WsConnection } from '../../src/platform/realtime/ws-connection';

export const PROBE = '/api/v2/realtime-probe';

/** Gateways and a stream that exist only in tests, to exercise the realtime layer's rules. */
abstract class ProbeGateway implements OnGatewayConnection {
  readonly connections: WsConnection[] = [];
  handleConnection(_socket: WebSocket, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    if (connection) this.connections.push(connection);
  }
}

/** Declares no access rule: every upgrade must be refused. */
@WebSocketGateway({ path: `${PROBE}/undeclared` })
export class UndeclaredGateway extends ProbeGateway {}

@WebSocketGateway({ path: `${PROBE}/public` })
@Public()
export class PublicGateway extends ProbeGateway {}

@WebSocketGateway({ path: `${PROBE}/admin` })
@Authenticated({ admin: true })
export class AdminGateway extends ProbeGateway {}

@CoderController('realtime-probe')
export class ProbeStreamController {
  readonly streams: SseConnection[] = [];

  constructor(
    private readonly sse: SseStreams,
    private readonly hub: RealtimeHub,
  ) {}

  /** Sends `hello` with the Last-Event-ID it was given, then every hub message of `probe:<user id>`. */
  @Get('stream')
  @Authenticated({ tokenScope: { type: 'user', action: 'read' } })
  stream(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal: Principal): void {
    const connection = this.sse.open(req, res, realtimeIdentity(principal));
    this.streams.push(connection);
    connection.send({ event: 'hello', data: connection.lastEventId ?? '' });
    let n = 0;
    this.hub.subscribeFor(connection, realtimeSubject('probe', principal.user.id), (payload) => {
      n += 1;
      connection.send({ event: 'probe', id: String(n), data: String(payload) });
    });
  }
}

@Module({
  controllers: [ProbeStreamController],
  providers: [UndeclaredGateway, PublicGateway, AdminGateway],
})
export class RealtimeProbeModule {}

/** An SSE client: the raw text received so far, the response head, and a way to hang up. */
export class SseClient {
  text = '';
  response: IncomingMessage | undefined;
  ended = false;
  readonly ready: Promise<IncomingMessage>;
  private readonly req;

  constructor(url: string, headers: Record<string, string> = {}) {
    let resolve!: (res: IncomingMessage) => void;
    let reject!: (error: Error) => void;
    this.ready = new Promise((res, rej) => ((resolve = res), (reject = rej)));
    this.req = httpRequest(url, { headers }, (res) => {
      this.response = res;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (this.text += chunk));
      res.on('end', () => (this.ended = true));
      res.on('close', () => (this.ended = true));
      resolve(res);
    });
    this.req.on('error', (error) => {
      this.ended = true;
      reject(error);
    });
    this.req.end();
  }

  /** Events received (comment lines skipped), each as its fields. */
  events(): Record<string, string>[] {
    return this.text
      .split('\n\n')
      .slice(0, -1)
      .map((block) => block.split('\n').filter((line) => !line.startsWith(':')))
      .filter((lines) => lines.length > 0)
      .map((lines) => {
        const event: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + 2);
          event[field] = field in event ? `${event[field]}\n${value}` : value;
        }
        return event;
      });
  }

  close(): void {
    this.req.destroy();
  }
}

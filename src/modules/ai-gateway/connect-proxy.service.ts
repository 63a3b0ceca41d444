import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Request } from 'express';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, isIP, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { isPublicAddress, type Resolver, systemResolver } from '../../platform/net/private-address';
import { CredentialVerifier } from '../auth/credential-verifier.service';
import { keyGrants } from '../auth/token-scopes';
import { AI_GATEWAY_CONFIG, type AiGatewayConfig } from './ai-gateway.config';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The Coder scope of the gateway's proxy routes (ai-gateway-proxy.controller.ts), required of tunnels too. */
const PROXY_SCOPE = { type: 'aibridge_interception', action: 'create' } as const;

/**
 * The CONNECT proxy for agents that reach providers through it (`AI_GATEWAY_PROXY_ADDRESS`, TLS
 * with `AI_GATEWAY_PROXY_TLS_CERT` / `_KEY`). A tunnel needs a devplane token
 * (`Proxy-Authorization: Bearer <token>`, or Basic with the token as the password). Targets on
 * private and reserved ranges are refused unless listed in `AI_GATEWAY_PROXY_ALLOWED_CIDRS`; the
 * deployment's own access URL (host and port) is always allowed. The name is resolved once, every
 * address is checked, and the tunnel is dialed to the checked address itself, so a DNS answer that
 * changes between check and dial changes nothing. With `AI_GATEWAY_UPSTREAM_PROXY` the check
 * happens the same way before the CONNECT is forwarded.
 */
@Injectable()
export class ConnectProxyService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ConnectProxyService.name);
  private server?: Server;
  private readonly allowed: Cidr[];
  private readonly sockets = new Set<Duplex>();
  /** Name resolution (replaceable in tests). */
  resolver: Resolver = systemResolver;

  constructor(
    @Inject(AI_GATEWAY_CONFIG) private readonly config: AiGatewayConfig,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    private readonly credentials: CredentialVerifier,
  ) {
    this.allowed = config.proxyAllowedCidrs.map((cidr) => {
      try {
        return ipaddr.parseCIDR(cidr);
      } catch {
        throw new Error(
          `Invalid configuration: AI_GATEWAY_PROXY_ALLOWED_CIDRS has "${cidr}", not a CIDR range`,
        );
      }
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.proxyAddress) return;
    const separator = this.config.proxyAddress.lastIndexOf(':');
    const host = this.config.proxyAddress.slice(0, separator).replace(/^\[|\]$/g, '') || '0.0.0.0';
    const port = Number(this.config.proxyAddress.slice(separator + 1));
    const tls = this.config.proxyTlsCert && this.config.proxyTlsKey;
    this.server = tls
      ? createHttpsServer({
          cert: readFileSync(this.config.proxyTlsCert!),
          key: readFileSync(this.config.proxyTlsKey!),
        })
      : createHttpServer();
    this.server.on('request', (_req, res) => {
      res.writeHead(405, { 'Content-Type': 'text/plain' }).end('Only CONNECT is supported.\n');
    });
    this.server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      void this.tunnel(req, socket, head);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.logger.log(
      `AI gateway CONNECT proxy listening on ${host}:${this.address()!.port}${tls ? ' (TLS)' : ''}`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  address(): AddressInfo | null {
    return (this.server?.address() as AddressInfo | null) ?? null;
  }

  private refuse(socket: Duplex, status: number, reason: string, extra = ''): void {
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\n${extra}Connection: close\r\n\r\n${reason}\n`,
    );
  }

  /**
   * The tunnel's caller: `missing` without valid credentials (407), `scope` when the key lacks the
   * scope the gateway's proxy routes require (`aibridge_interception:create`, issue 31.1; 403).
   */
  private async authenticated(req: IncomingMessage): Promise<'ok' | 'missing' | 'scope'> {
    const header = req.headers['proxy-authorization'];
    if (typeof header !== 'string') return 'missing';
    const [scheme, value = ''] = header.split(/\s+/, 2);
    let token = value;
    if (scheme?.toLowerCase() === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      token = decoded.slice(decoded.indexOf(':') + 1);
    } else if (scheme?.toLowerCase() !== 'bearer') return 'missing';
    try {
      const fake = { ip: req.socket.remoteAddress ?? '', headers: req.headers } as unknown as Request;
      const principal = await this.credentials.userFromToken(token, 'bearer', fake);
      return keyGrants(principal, PROXY_SCOPE) ? 'ok' : 'scope';
    } catch {
      return 'missing';
    }
  }

  /** The deployment's access URL (host and port) is always reachable. */
  private isAccessUrl(host: string, port: number): boolean {
    const access = new URL(this.app.publicUrl);
    const accessPort = Number(access.port || (access.protocol === 'https:' ? 443 : 80));
    return (
      access.hostname.replace(/^\[|\]$/g, '').toLowerCase() === host.toLowerCase() && accessPort === port
    );
  }

  /** Whether a resolved address may be dialed. */
  allowedAddress(address: string): boolean {
    if (isPublicAddress(address)) return true;
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address);
    } catch {
      return false;
    }
    return this.allowed.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
  }

  private resolve(host: string): Promise<string[]> {
    if (isIP(host)) return Promise.resolve([host]);
    return new Promise((resolve, reject) =>
      this.resolver(host, (error, addresses) =>
        error ? reject(error) : resolve(addresses.map((entry) => entry.address)),
      ),
    );
  }

  private async tunnel(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const caller = await this.authenticated(req);
    if (caller === 'scope') {
      this.refuse(socket, 403, 'Forbidden');
      return;
    }
    if (caller !== 'ok') {
      this.refuse(
        socket,
        407,
        'Proxy Authentication Required',
        'Proxy-Authenticate: Basic realm="devplane"\r\n',
      );
      return;
    }
    const target = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    const host = target?.[1];
    const port = Number(target?.[2]);
    if (!host || !port || port > 65535) {
      this.refuse(socket, 400, 'Bad Request');
      return;
    }
    const exempt = this.isAccessUrl(host, port);
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch {
      this.refuse(socket, 502, 'Bad Gateway');
      return;
    }
    // Every address of the answer must pass: a name cannot mix a public and a private address.
    if (addresses.length === 0 || (!exempt && !addresses.every((address) => this.allowedAddress(address)))) {
      this.logger.warn(`CONNECT to ${host}:${port} refused: private or reserved address`);
      this.refuse(socket, 403, 'Forbidden');
      return;
    }
    const upstream = this.config.upstreamProxy ? new URL(this.config.upstreamProxy) : null;
    const outbound: Socket = upstream
      ? netConnect({ host: upstream.hostname, port: Number(upstream.port || 80) })
      : netConnect({ host: addresses[0]!, port });
    this.sockets.add(outbound);
    outbound.on('close', () => this.sockets.delete(outbound));
    outbound.once('error', () => {
      if (!socket.destroyed) this.refuse(socket, 502, 'Bad Gateway');
    });
    outbound.once('connect', () => {
      const established = (early: Buffer = Buffer.alloc(0)) => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (early.length) socket.write(early);
        if (head.length) outbound.write(head);
        outbound.pipe(socket);
        socket.pipe(outbound);
        socket.on('close', () => outbound.destroy());
        // end, not destroy: what the target already sent still reaches the client.
        outbound.on('close', () => socket.end());
      };
      if (!upstream) return established();
      // The check is done; the upstream proxy resolves and dials the name itself.
      const authority = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
      outbound.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
      let buffered = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        outbound.off('data', onData);
        if (!/^HTTP\/1\.[01] 200/.test(buffered.toString('latin1'))) {
          this.refuse(socket, 502, 'Bad Gateway');
          outbound.destroy();
          return;
        }
        established(buffered.subarray(end + 4));
      };
      outbound.on('data', onData);
    });
  }
}

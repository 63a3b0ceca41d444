import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Response } from 'express';
import { AuditLog } from '../../../platform/audit/audit-log';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { DomainError } from '../../../platform/errors/domain-error';
import type { Principal } from '../../../api/access/principal';
import { AuthorizationService } from '../../auth/authorization.service';
import { CredentialResolver } from '../../auth/credential-resolver.service';
import { keyGrants } from '../../auth/token-scopes';
import { upgradeRequest } from '../../auth/upgrade-request';
import { IdentityDirectory } from '../../identity/identity-directory.service';
import { AgentStreamsService } from '../agent-streams.service';
import { agentStatus } from '../coder-workspace.presenter';
import { WorkspaceAgentsRepository } from '../repositories/workspace-agents.repository';
import { WorkspaceViewsRepository } from '../repositories/workspace-views.repository';
import { WorkspaceAgentsService } from '../workspace-agents.service';
import type { AgentRow, WorkspaceRow } from '../workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../workspaces.config';
import { workspaceObject } from '../workspaces.service';
import { AgentTunnel, TunnelAgent } from './agent-tunnel';
import {
  type AppTarget,
  effectiveShare,
  forwardablePort,
  forwardedPort,
  pathAppTarget,
  SESSION_HEADERS,
  setsSessionCookie,
  shareAdmits,
  stripSessionCookies,
  stripSessionQuery,
  subdomainAppTarget,
} from './app-routing';

/** A refusal of the proxy: Coder's `{message, detail}` with a status. */
class AppProxyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail = '',
  ) {
    super(message);
  }
}

const NOT_FOUND = new AppProxyError(
  404,
  'Application not found',
  'The application or workspace does not exist or you do not have access to it.',
);
/** HTTP requests of one caller to one app are logged (connection log and audit) once per window. */
const LOG_WINDOW_MS = 5 * 60_000;
/** How long the workspace and agent a URL names are kept (an app's burst of requests reads them once). */
const LOOKUP_MS = 1_000;
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

interface Resolved {
  workspace: WorkspaceRow;
  agent: AgentRow;
  principal: Principal | undefined;
  /** The app (undefined for a forwarded port). */
  app: AgentRow['apps'][number] | undefined;
  port: number | null;
  host: string;
  targetPort: number;
  /** The app URL's own path prefix (without its trailing slash). */
  prefix: string;
  /** The credential came in the Authorization header: it is removed from what the app sees. */
  viaAuthorization: boolean;
}

function clientIp(req: IncomingMessage): string | null {
  const address = req.socket.remoteAddress ?? null;
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * Workspace apps and port forwarding (issue 50 item 2), Coder's app proxy: `/@{owner}/{workspace}[.{agent}]
 * /apps/{slug|port}/...` and, with WILDCARD_ACCESS_URL, `{slug|port}--{agent}--{workspace}--{owner}.<suffix>`.
 * HTTP and WebSocket upgrades go to the app's URL inside the workspace through the agent: each connection is
 * an agent `tcp` stream (AgentStreamsService; the workspace has its own network namespace, the server never
 * connects to it), reused for keep-alive HTTP requests. The proxy sits in front of Express and the gateways
 * (it takes the server's `request` and `upgrade` events for its own URLs) so app paths never meet the API's
 * routing, body parsing or CSRF rule; the session credential is stripped from what the app sees and the
 * app cannot set the session cookies. See README.md "Workspace apps".
 */
@Injectable()
export class WorkspaceAppsProxy implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WorkspaceAppsProxy.name);
  private readonly agents = new Map<string, TunnelAgent>();
  private readonly logged = new Map<string, number>();
  private readonly lookups = new Map<
    string,
    { value: { workspace: WorkspaceRow; agent: AgentRow } | null; expires: number }
  >();
  /** WebSocket connections relayed now (tests read it). */
  openSockets = 0;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly credentials: CredentialResolver,
    private readonly authz: AuthorizationService,
    private readonly directory: IdentityDirectory,
    private readonly views: WorkspaceViewsRepository,
    private readonly agentRows: WorkspaceAgentsRepository,
    private readonly streams: AgentStreamsService,
    private readonly agentsService: WorkspaceAgentsService,
    private readonly transactions: TransactionRunner,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as http.Server | undefined;
    if (!server) return;
    const requestListeners = server.listeners('request') as ((
      req: IncomingMessage,
      res: ServerResponse,
    ) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const target = this.targetOf(req);
      if (target) void this.serveHttp(req, res, target);
      else for (const listener of requestListeners) listener.call(server, req, res);
    });
    const upgradeListeners = server.listeners('upgrade') as ((
      req: IncomingMessage,
      socket: Duplex,
      head: Buffer,
    ) => void)[];
    server.removeAllListeners('upgrade');
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const target = this.targetOf(req);
      if (target) void this.serveUpgrade(req, socket, head, target);
      else for (const listener of upgradeListeners) listener.call(server, req, socket, head);
    });
  }

  onModuleDestroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** The app a request is for: a path-based URL, or a subdomain of WILDCARD_ACCESS_URL. */
  targetOf(req: IncomingMessage): AppTarget | null {
    const url = req.url ?? '/';
    if (this.config.wildcardAccess) {
      const bySubdomain = subdomainAppTarget(req.headers.host, url, this.config.wildcardAccess.suffix);
      if (bySubdomain) return bySubdomain;
    }
    return url.startsWith('/@') ? pathAppTarget(url) : null;
  }

  // ------------------------------------------------------------------ resolution and access

  private async caller(req: IncomingMessage): Promise<{ principal?: Principal; viaAuthorization: boolean }> {
    const shim = upgradeRequest(req);
    const res = { setHeader: () => undefined, getHeader: () => undefined } as unknown as Response;
    try {
      const principal = await this.credentials.resolveAny(shim, res);
      if (principal?.kind !== 'user') return { viaAuthorization: false };
      return {
        principal,
        viaAuthorization: ['bearer', 'token_header', 'basic_password', 'basic_token'].includes(
          principal.source,
        ),
      };
    } catch (error) {
      // Bad or expired credentials: an anonymous caller (a public app still opens).
      if (error instanceof DomainError) return { viaAuthorization: false };
      throw error;
    }
  }

  private async resolve(req: IncomingMessage, target: AppTarget): Promise<Resolved> {
    const { principal, viaAuthorization } = await this.caller(req);
    // Built only when thrown (an Error captures its stack: a cost on every proxied request otherwise).
    const unauthenticated = (): AppProxyError =>
      new AppProxyError(401, 'Unauthorized', 'Sign in to open this application.');
    // Coder's scope for opening apps and ports.
    if (principal?.token && !keyGrants(principal, { type: 'workspace', action: 'application_connect' }))
      throw new AppProxyError(403, 'Forbidden.', 'The API key does not allow workspace:application_connect.');
    const found = await this.lookup(target, principal);
    // Anonymous callers learn nothing about what exists: they are asked to sign in.
    if (!found) throw principal ? NOT_FOUND : unauthenticated();
    const { workspace, agent } = found;
    const port = forwardedPort(target.slugOrPort);
    const app =
      port === null ? agent.apps.find((candidate) => candidate.slug === target.slugOrPort) : undefined;
    if (port === null && !app) throw principal ? NOT_FOUND : unauthenticated();
    // Path-based apps run on the API's origin: shared beyond the workspace's own users, or opened by a site
    // owner who is not one of them, only when the deployment allows it (Coder's dangerous flags).
    const pathApp = !target.subdomain;
    const siteOwnerOnly =
      principal !== undefined &&
      pathApp &&
      !this.config.allowPathAppSiteOwnerAccess &&
      principal.user.isAdmin &&
      principal.user.uuid !== workspace.owner_id &&
      !(principal.user.uuid in (workspace.user_acl ?? {}));
    const canConnect =
      principal && !siteOwnerOnly
        ? await this.authz.authorize(principal, 'application_connect', workspaceObject(workspace))
        : false;
    const level =
      app && (!pathApp || this.config.allowPathAppSharing)
        ? effectiveShare(app.share, app.max_share)
        : 'owner';
    let inOrganization = false;
    if (!canConnect && principal && level === 'organization') {
      const memberships = await this.directory.subjectMemberships(principal.user.id);
      inOrganization = memberships.some((row) => row.org_uuid === workspace.organization_id);
    }
    if (!shareAdmits(level, { signedIn: principal !== undefined, canConnect, inOrganization }))
      throw principal ? NOT_FOUND : unauthenticated();
    let host = '127.0.0.1';
    let targetPort: number;
    let prefix = '';
    if (port !== null) {
      if (!forwardablePort(port))
        throw new AppProxyError(
          400,
          'Invalid port.',
          "Only ports from 1024 that are not the agent's own can be forwarded.",
        );
      targetPort = port;
    } else {
      let url: URL;
      try {
        url = new URL(app!.url ?? '');
      } catch {
        throw new AppProxyError(404, 'Application not found', 'The application has no URL to proxy to.');
      }
      if (url.protocol !== 'http:')
        throw new AppProxyError(502, 'Bad Gateway', 'Only http application URLs are proxied.');
      host = url.hostname.replace(/^\[|\]$/g, '');
      targetPort = url.port ? Number(url.port) : 80;
      prefix = url.pathname.replace(/\/+$/, '');
    }
    const status = agentStatus(agent, this.config.agentDisconnectMs);
    if (status !== 'connected')
      throw new AppProxyError(502, 'Bad Gateway', `The workspace agent is ${status}, it must be connected.`);
    return { workspace, agent, principal, app, port, host, targetPort, prefix, viaAuthorization };
  }

  /**
   * The workspace and its current agent a URL names (null: none, or another agent name). Kept for
   * LOOKUP_MS: an app's requests come in bursts (a page and its assets) and each would otherwise read
   * the owner, the workspace and the agent again; access is still decided per request.
   */
  private async lookup(
    target: AppTarget,
    principal: Principal | undefined,
  ): Promise<{ workspace: WorkspaceRow; agent: AgentRow } | null> {
    if (target.owner === 'me' && !principal) return null;
    const key = `${target.owner === 'me' ? principal!.user.uuid : target.owner.toLowerCase()}|${target.workspace.toLowerCase()}|${target.agent ?? ''}`;
    const now = Date.now();
    const cached = this.lookups.get(key);
    if (cached && cached.expires > now) return cached.value;
    const owners =
      target.owner === 'me' ? [principal!.user.uuid] : await this.directory.accountUuidsByRef(target.owner);
    let workspace: WorkspaceRow | undefined;
    for (const owner of owners) {
      workspace = await this.views.workspaceByOwnerAndName(owner, target.workspace.toLowerCase());
      if (workspace) break;
    }
    const agent = workspace ? await this.agentRows.currentAgentOfWorkspace(workspace.id) : undefined;
    const value =
      workspace && agent && (target.agent === null || target.agent === agent.name)
        ? { workspace, agent }
        : null;
    if (this.lookups.size > 10_000) this.lookups.clear();
    this.lookups.set(key, { value, expires: now + LOOKUP_MS });
    return value;
  }

  private tunnelAgent(resolved: Resolved): TunnelAgent {
    const key = `${resolved.agent.id}|${resolved.host}|${resolved.targetPort}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const row = resolved.agent;
      const args = { host: resolved.host, port: resolved.targetPort };
      agent = new TunnelAgent(async () => new AgentTunnel(await this.streams.open(row, 'tcp', args, 15_000)));
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** The request's headers as the app sees them: no session credential, no hop-by-hop headers. */
  private forwardedHeaders(
    req: IncomingMessage,
    resolved: Resolved,
    keepUpgrade: boolean,
  ): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (!keepUpgrade && HOP_BY_HOP.includes(name)) continue;
      if (SESSION_HEADERS.includes(name)) continue;
      if (name === 'authorization' && resolved.viaAuthorization) continue;
      headers[name] = value;
    }
    const cookie = stripSessionCookies(req.headers.cookie);
    if (cookie === undefined) delete headers.cookie;
    else headers.cookie = cookie;
    const ip = clientIp(req);
    if (ip)
      headers['x-forwarded-for'] = req.headers['x-forwarded-for']
        ? `${String(req.headers['x-forwarded-for'])}, ${ip}`
        : ip;
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-proto'] = 'http';
    return headers;
  }

  private appPath(target: AppTarget, resolved: Resolved): string {
    return resolved.prefix + stripSessionQuery(target.path ?? '/');
  }

  // ------------------------------------------------------------------ HTTP

  private async serveHttp(req: IncomingMessage, res: ServerResponse, target: AppTarget): Promise<void> {
    // Coder redirects a path-based app URL without its trailing slash to the URL with it.
    if (target.path === null) {
      const queryAt = (req.url ?? '').indexOf('?');
      const location = `${target.basePath}/${queryAt === -1 ? '' : (req.url ?? '').slice(queryAt)}`;
      res.writeHead(307, { Location: location, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end();
      req.resume();
      return;
    }
    let resolved: Resolved;
    try {
      resolved = await this.resolve(req, target);
    } catch (error) {
      req.resume();
      this.refuse(req, res, target, error);
      return;
    }
    this.record(req, target, resolved, false);
    this.forward(req, res, target, resolved, true);
  }

  /** One try of the request to the app; a GET/HEAD that met a pooled connection the app had closed is tried once more. */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: AppTarget,
    resolved: Resolved,
    mayRetry: boolean,
  ): void {
    const bodyless =
      (req.method === 'GET' || req.method === 'HEAD') &&
      req.headers['content-length'] === undefined &&
      req.headers['transfer-encoding'] === undefined;
    const upstream = http.request({
      agent: this.tunnelAgent(resolved),
      host: resolved.host,
      port: resolved.targetPort,
      method: req.method,
      path: this.appPath(target, resolved),
      headers: this.forwardedHeaders(req, resolved, false),
      setHost: false,
    });
    upstream.on('response', (answer) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined || HOP_BY_HOP.includes(name)) continue;
        if (name === 'set-cookie') {
          const kept = (value as string[]).filter((cookie) => !setsSessionCookie(cookie));
          if (kept.length > 0) headers[name] = kept;
          continue;
        }
        headers[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else if (mayRetry && upstream.reusedSocket && bodyless) this.forward(req, res, target, resolved, false);
      else
        this.refuse(
          req,
          res,
          target,
          new AppProxyError(502, 'Bad Gateway', `Failed to proxy request to application: ${error.message}`),
        );
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (bodyless) {
      req.resume();
      upstream.end();
    } else req.pipe(upstream);
  }

  private refuse(req: IncomingMessage, res: ServerResponse, target: AppTarget, error: unknown): void {
    const refusal =
      error instanceof AppProxyError
        ? error
        : error instanceof DomainError
          ? new AppProxyError(502, 'Bad Gateway', `Failed to proxy request to application: ${error.message}`)
          : undefined;
    if (!refusal) {
      this.logger.error({ err: error }, 'workspace app proxy failed');
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal error.' }));
      return;
    }
    // A browser navigating to a private path-based app signs in first (Coder's redirect to /login).
    const html = /text\/html/.test(req.headers.accept ?? '');
    if (refusal.status === 401 && html && req.method === 'GET' && !target.subdomain) {
      res.writeHead(303, { Location: `/login?redirect=${encodeURIComponent(req.url ?? '/')}` });
      res.end();
      return;
    }
    res.writeHead(refusal.status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ message: refusal.message, detail: refusal.detail }));
  }

  // ------------------------------------------------------------------ WebSocket (and any upgrade)

  private async serveUpgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    target: AppTarget,
  ): Promise<void> {
    socket.on('error', () => socket.destroy());
    let resolved: Resolved;
    let tunnel: AgentTunnel;
    try {
      resolved = await this.resolve(req, target);
      tunnel = new AgentTunnel(
        await this.streams.open(
          resolved.agent,
          'tcp',
          { host: resolved.host, port: resolved.targetPort },
          15_000,
        ),
      );
    } catch (error) {
      const refusal =
        error instanceof AppProxyError
          ? error
          : new AppProxyError(502, 'Bad Gateway', error instanceof Error ? error.message : String(error));
      if (!(error instanceof AppProxyError) && !(error instanceof DomainError))
        this.logger.error({ err: error }, 'workspace app upgrade failed');
      const body = JSON.stringify({ message: refusal.message, detail: refusal.detail });
      socket.end(
        `HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const headers = this.forwardedHeaders(req, resolved, true);
    let text = `${req.method ?? 'GET'} ${this.appPath(target, resolved)} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers))
      for (const one of Array.isArray(value) ? value : [value]) text += `${name}: ${String(one)}\r\n`;
    tunnel.write(`${text}\r\n`);
    if (head.length > 0) tunnel.write(head);
    const closed = this.record(req, target, resolved, true);
    this.openSockets++;
    let done = false;
    const finish = (reason: string): void => {
      if (done) return;
      done = true;
      this.openSockets--;
      tunnel.destroy();
      socket.destroy();
      closed?.(reason);
    };
    tunnel.on('error', () => finish('workspace connection error'));
    tunnel.on('close', () => finish('workspace connection closed'));
    socket.on('close', () => finish('client disconnected'));
    socket.pipe(tunnel).pipe(socket);
  }

  // ------------------------------------------------------------------ connection log and audit

  /**
   * Coder's connection log (`workspace_app`, `port_forwarding`) and an audit entry (`open` of a
   * `workspace_app`; `connect` of the `workspace_agent` for a port): each WebSocket, and HTTP requests once
   * per caller, app and LOG_WINDOW_MS. Returns the disconnect reporter of a socket.
   */
  private record(
    req: IncomingMessage,
    target: AppTarget,
    resolved: Resolved,
    socket: boolean,
  ): ((reason: string) => void) | undefined {
    const ip = clientIp(req);
    const userAgent = (req.headers['user-agent'] ?? '').slice(0, 512) || undefined;
    const type = resolved.port === null ? 'workspace_app' : 'port_forwarding';
    if (!socket) {
      const key = `${resolved.agent.id}|${resolved.principal?.user.uuid ?? ip}|${target.slugOrPort}`;
      const now = Date.now();
      if ((this.logged.get(key) ?? 0) > now - LOG_WINDOW_MS) return undefined;
      this.logged.set(key, now);
      if (this.logged.size > 10_000)
        for (const [entry, at] of this.logged) if (at <= now - LOG_WINDOW_MS) this.logged.delete(entry);
    }
    const identity = {
      agentId: resolved.agent.id,
      workspaceId: resolved.workspace.id,
      ownerId: resolved.workspace.owner_id,
    };
    const id = randomUUID();
    const warn = (error: unknown): void => this.logger.warn({ err: error }, 'workspace app log failed');
    const opened = this.agentsService
      .reportConnectionLog(identity, {
        id,
        action: 'connect',
        type,
        ip: ip ?? undefined,
        userAgent,
        slugOrPort: target.slugOrPort,
        userId: resolved.principal?.user.uuid,
      })
      .catch(warn);
    if (this.audit) {
      const audit = this.audit;
      void this.transactions
        .run((tx) =>
          audit.record(tx.manager, {
            action: resolved.port === null ? 'open' : 'connect',
            resourceType: resolved.port === null ? 'workspace_app' : 'workspace_agent',
            resourceId: resolved.app?.id ?? resolved.agent.id,
            resourceTarget: resolved.app?.slug ?? `${resolved.agent.name}:${resolved.port}`,
            actorUserId: resolved.principal?.user.id ?? null,
            organizationId: resolved.workspace.organization_id,
            ip,
            userAgent: userAgent ?? null,
            additionalFields: {
              workspace_id: resolved.workspace.id,
              workspace_name: resolved.workspace.name,
              agent_name: resolved.agent.name,
              slug_or_port: target.slugOrPort,
              connection_type: type,
            },
          }),
        )
        .catch(warn);
    }
    if (!socket) return undefined;
    return (reason) =>
      void opened.then(() =>
        this.agentsService
          .reportConnectionLog(identity, { id, action: 'disconnect', type, reason, code: 0 })
          .catch(warn),
      );
  }
}

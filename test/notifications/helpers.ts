import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { DataSource } from 'typeorm';
import WebSocket from 'ws';

/** Polls `predicate` until it returns a truthy value (no fixed sleeps in tests). */
export async function waitFor<T>(
  predicate: () => Promise<T> | T,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Embedded PGlite (the default test database) serves every connection from one backend and
 * interleaves the extended-protocol messages of concurrent connections (pglite-socket queues
 * Parse/Bind/Execute one message at a time), so concurrent queries on two connections can fail
 * with "bind message supplies N parameters". On embedded, test apps use one connection and only
 * one app runs at a time; two-instance scenarios run against a PostgreSQL server.
 */
export const EMBEDDED = process.env.DATABASE_EMBEDDED === 'true';

export function appEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...(EMBEDDED ? { DATABASE_POOL_SIZE: '1' } : {}), ...extra };
}

/** Settings that make the queue fast in tests (pass them in createTestApp's env). */
export function fastQueueEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NOTIFICATIONS_FETCH_INTERVAL_MS: '200',
    NOTIFICATIONS_LEASE_PERIOD_MS: '2000',
    NOTIFICATIONS_DISPATCH_TIMEOUT_MS: '1000',
    NOTIFICATIONS_RETRY_INTERVAL_MS: '50',
    NOTIFICATIONS_RETRY_MAX_MS: '200',
    ...extra,
  };
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) of a header value. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g,
      (_all, _charset: string, encoding: string, text: string) => {
        if (encoding.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
        const bytes = text
          .replace(/_/g, ' ')
          .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        return Buffer.from(bytes, 'latin1').toString('utf8');
      },
    );
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
}

/** A real SMTP server in the test process; `reply` can make it refuse messages. */
export class TestSmtpServer {
  readonly mails: ReceivedMail[] = [];
  /** Responses for the next messages: a code (e.g. 451, 550) refuses; undefined accepts. */
  failures: number[] = [];
  attempts = 0;
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (_auth, _session, callback) => callback(null, { user: 'test' }),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.attempts += 1;
          const failure = this.failures.shift();
          if (failure) {
            const error = new Error(failure >= 500 ? 'Mailbox unavailable' : 'Try again later') as Error & {
              responseCode: number;
            };
            error.responseCode = failure;
            callback(error);
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          const headers = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
          const subject = decodeWords(/^Subject: (.*)$/m.exec(headers)?.[1] ?? '');
          this.mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            subject,
          });
          callback();
        });
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return `smtp://user:pass@127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface ReceivedHook {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A local HTTP receiver for the webhook method; `statuses` scripts its next answers. */
export class TestWebhookReceiver {
  readonly received: ReceivedHook[] = [];
  statuses: number[] = [];
  defaultStatus = 200;
  private server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        });
        res.statusCode = this.statuses.shift() ?? this.defaultStatus;
        res.end('ok');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface MessageRow {
  id: string;
  method: string;
  status: string;
  attempt_count: number;
  status_reason: string | null;
  template_id: string;
  user_id: string;
}

export function messagesOf(dataSource: DataSource, userId: string): Promise<MessageRow[]> {
  return dataSource.query(
    'SELECT id, method, status, attempt_count, status_reason, template_id, user_id FROM notification_messages WHERE user_id = $1 ORDER BY created_at',
    [userId],
  );
}

export async function inboxCount(dataSource: DataSource, userId: string): Promise<number> {
  const rows: { count: string }[] = await dataSource.query(
    'SELECT count(*) AS count FROM inbox_notifications WHERE user_id = $1',
    [userId],
  );
  return Number(rows[0]!.count);
}

/** A WebSocket client that records text frames and the close code/reason. */
export class WatchClient {
  readonly frames: Record<string, unknown>[] = [];
  readonly rawFrames: string[] = [];
  closed: { code: number; reason: string } | undefined;
  unexpected: { status: number; body: string } | undefined;
  readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(url, { headers });
    this.socket.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      this.rawFrames.push(text);
      this.frames.push(JSON.parse(text) as Record<string, unknown>);
    });
    this.socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString('utf8') };
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.on('open', () => resolve());
      this.socket.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          this.unexpected = { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') };
          reject(new Error(`unexpected response ${res.statusCode}`));
        });
      });
      this.socket.on('error', (error) => reject(error));
    });
    this.opened.catch(() => undefined);
  }

  close(): void {
    this.socket.close();
  }
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pinoHttp from 'pino-http';
import type { Request } from 'express';
import type { AppConfig } from '../../../src/platform/config/app-config';
import { setRequestCaller } from '../../../src/platform/http/request-caller';
import { loggerOptions, redactQueryCredentials } from '../../../src/platform/logging/logger-options';

describe('request log URLs', () => {
  it.each([
    ['/api/v1/user?token=abc-def', '/api/v1/user?token=[redacted]'],
    ['/api/v1/user?page=2&access_token=abc&limit=3', '/api/v1/user?page=2&access_token=[redacted]&limit=3'],
    [
      '/api/v2/notifications/inbox/watch?service_session_token=x#frag',
      '/api/v2/notifications/inbox/watch?service_session_token=[redacted]#frag',
    ],
    ['/api/v1/repos?q=token=1', '/api/v1/repos?q=token=1'],
    ['/api/v1/user', '/api/v1/user'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactQueryCredentials(url)).toBe(logged);
  });
});

describe('request log levels', () => {
  /** A server logging through pino-http with loggerOptions at `level`; returns the lines written. */
  async function linesFor(
    level: AppConfig['logLevel'],
    statuses: (number | string)[],
  ): Promise<Record<string, unknown>[]> {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const middleware = pinoHttp(loggerOptions({ logLevel: level, logFormat: 'json' } as AppConfig), sink);
    const server = http.createServer((req, res) => {
      middleware(req, res);
      // `/404?user=7`: the auth guard found user 7 (after the middleware, as in the application).
      const url = new URL(req.url!, 'http://localhost');
      const userId = url.searchParams.get('user');
      if (userId) {
        setRequestCaller(req as unknown as Request, {
          kind: 'user',
          userId,
          isAdmin: false,
          mustChangePassword: false,
          source: 'bearer',
        });
      }
      res.statusCode = Number(url.pathname.slice(1));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const status of statuses) await fetch(`http://127.0.0.1:${port}/${status}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('at warn, a success writes nothing and a client or server error one line at its level', async () => {
    const lines = await linesFor('warn', [200, 204, 404, 503]);
    expect(lines.map((line) => [line.level, (line.res as { statusCode: number }).statusCode])).toEqual([
      [40, 404],
      [50, 503],
    ]);
  });

  it('at info, every request is one line', async () => {
    const lines = await linesFor('info', [200, 404]);
    expect(lines.map((line) => line.level)).toEqual([30, 40]);
    expect((lines[0]!.req as { url: string }).url).toBe('/200');
  });

  it("names the caller's user id once the guard has found one, and no user for an anonymous call", async () => {
    const lines = await linesFor('info', ['200?user=7', 403]);
    expect(lines.map((line) => line.userId)).toEqual(['7', undefined]);
    expect('userId' in lines[1]!).toBe(false);
  });

  it('silent writes nothing', async () => {
    expect(await linesFor('silent', [200, 500])).toEqual([]);
  });
});

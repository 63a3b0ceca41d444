import { parse } from 'cookie';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';

/** Cookies of an upgrade request, parsed by `cookie` (what cookie-parser uses for HTTP requests). */
function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const [name, value] of Object.entries(parse(header ?? ''))) {
    if (value !== undefined) cookies[name] = value;
  }
  return cookies;
}

/**
 * An Express-shaped view of a WebSocket upgrade request (which never went through Express): path,
 * query, parsed cookies, headers, client address. What the credential strategies and the guard read.
 */
export function upgradeRequest(req: IncomingMessage): Request {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const current = query[key];
    if (current === undefined) query[key] = value;
    else query[key] = Array.isArray(current) ? [...current, value] : [current, value];
  }
  const header = (name: string): string | undefined => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const shim = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    originalUrl: req.url ?? '/',
    path: url.pathname,
    headers: req.headers,
    cookies: parseCookies(header('cookie')),
    query,
    ip: req.socket?.remoteAddress ?? '',
    protocol: 'http',
    socket: req.socket,
    get: header,
    header,
  };
  return shim as unknown as Request;
}

import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in cookies) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      cookies[name] = value;
    }
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

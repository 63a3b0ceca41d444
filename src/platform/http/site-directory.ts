import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { ConfigError, type Env, read } from '../config/app-config';
import { CSRF_COOKIE } from './credential-names';
import { keptCsrfToken } from './csrf-token';

/**
 * `SITE_DIR` (issue 48 item 2): a directory holding a built Coder-compatible web UI (Coder's own
 * `site/out`), served at `/` the way Coder's server serves it (`site/site.go`):
 *
 * - every `.html` file is a Go-template page: `{{ .CSRF.Token }}` gets the caller's CSRF token (the
 *   `csrf_token` cookie is set with the page and kept, so the token the page renders into
 *   `<meta property="csrf-token">` stays valid across sign-in), every other field (`{{ .User }}`,
 *   `{{ .Entitlements }}`, `{{ .BuildInfo }}`, ...) is left empty: the UI then reads it from the API;
 * - a file that exists is served; hashed build output (everything but `.html` and `*worker.js`) with
 *   `Cache-Control: public, max-age=31536000, immutable`, the rest with `no-cache`;
 * - a missing `assets/` or `icon/` file is 404; `/x` is `x.html` when that exists; any other page path
 *   is the single-page app's `index.html`.
 *
 * The fallback runs behind every route (registered after them), so it never shadows an API, git, package
 * or documentation route, and paths that belong to them (`/api/...`, `*.git/...`) keep their own 404.
 */
/** Express's handler, as Nest's adapter types it (`next` may be absent). */
type SiteHandler = (req: Request, res: Response, next?: Function) => void;

export interface SiteDirectory {
  /** `GET /`: the app's index page. */
  index: SiteHandler;
  /** Every other GET/HEAD that no route answered. */
  fallback: SiteHandler;
}

/** SITE_DIR, validated at boot: unset (the landing page stays) or a directory holding `index.html`. */
export function siteDirFromEnv(env: Readonly<Env>): string | undefined {
  const raw = read(env as Env, 'SITE_DIR');
  if (raw === undefined) return undefined;
  const dir = path.resolve(raw);
  try {
    if (!statSync(path.join(dir, 'index.html')).isFile()) throw new Error('not a file');
  } catch {
    throw new ConfigError('SITE_DIR', `must be a directory holding index.html, got "${raw}"`);
  }
  return realpathSync(dir);
}

/** Paths a route owns even when no route matched: they keep the app's own 404. */
const NOT_THE_SITE =
  /^\/(?:api|ocs|docs|docs-json|docs-experimental|healthz|readyz|metrics|attachments)(?:\/|$)|\.git(?:\/|$)/;
const TEMPLATE_FIELD = /\{\{-?\s*\.([A-Za-z]+)(?:\.([A-Za-z]+))?\s*-?\}\}/g;
const IMMUTABLE = 'public, max-age=31536000, immutable';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function siteDirectory(dir: string, options: { secureCookies: boolean }): SiteDirectory {
  const templates = new Map<string, string>();
  const template = (file: string): string | undefined => {
    let text = templates.get(file);
    if (text === undefined) {
      try {
        text = readFileSync(path.join(dir, file), 'utf8');
      } catch {
        return undefined;
      }
      templates.set(file, text);
    }
    return text;
  };

  /** A regular file inside the directory (never through a link that leaves it). */
  const fileOf = (relative: string): string | undefined => {
    if (relative === '' || relative.split('/').some((part) => part.startsWith('.'))) return undefined;
    const absolute = path.join(dir, relative);
    try {
      if (!statSync(absolute).isFile()) return undefined;
      const real = realpathSync(absolute);
      return real.startsWith(dir + path.sep) ? real : undefined;
    } catch {
      return undefined;
    }
  };

  const renderPage = (req: Request, res: Response, file: string): boolean => {
    const text = template(file);
    if (text === undefined) return false;
    const token = keptCsrfToken(req);
    res.cookie(CSRF_COOKIE, token, {
      path: '/',
      httpOnly: false,
      sameSite: 'lax',
      secure: options.secureCookies,
      maxAge: 365 * 86_400_000,
    });
    const html = text.replace(TEMPLATE_FIELD, (_match, field: string, sub: string | undefined) =>
      field === 'CSRF' && sub === 'Token' ? escapeHtml(token) : '',
    );
    // The page carries the caller's CSRF token: never stored by shared caches.
    res.status(200).type('html').setHeader('Cache-Control', 'no-cache, private');
    res.send(html);
    return true;
  };

  const sendStatic = (res: Response, next: NextFunction, absolute: string, relative: string): void => {
    const cacheable = !relative.endsWith('.html') && !relative.endsWith('worker.js');
    res.sendFile(
      absolute,
      {
        cacheControl: false,
        dotfiles: 'deny',
        headers: { 'Cache-Control': cacheable ? IMMUTABLE : 'no-cache' },
      },
      (error?: Error) => {
        if (error && !res.headersSent) next();
      },
    );
  };

  const serve: SiteHandler = (req, res, given) => {
    const next = (): void => {
      if (given) given();
      else res.status(404).end();
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (NOT_THE_SITE.test(req.path)) return next();
    let relative: string;
    try {
      relative = path.posix.normalize(decodeURIComponent(req.path)).replace(/^\/+/, '').replace(/\/+$/, '');
    } catch {
      return next();
    }
    if (relative.includes('\0') || relative.startsWith('..')) return next();
    if (relative === '' || relative === 'index.html') {
      if (!renderPage(req, res, 'index.html')) next();
      return;
    }
    const absolute = fileOf(relative);
    if (absolute && relative.endsWith('.html')) {
      if (!renderPage(req, res, relative)) next();
      return;
    }
    if (absolute) return sendStatic(res, next, absolute, relative);
    // A missing asset is a 404, never the app's page (a stale page would load HTML as a script).
    if (/^(assets|icon)(\/|$)/.test(relative)) return next();
    if (fileOf(`${relative}.html`) && renderPage(req, res, `${relative}.html`)) return;
    if (!renderPage(req, res, 'index.html')) next();
  };

  return { index: serve, fallback: serve };
}

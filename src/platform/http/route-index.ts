import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import parseUrl from 'parseurl';

/** A segment of a route path with nothing path-to-regexp reads as syntax (parameters, wildcards, groups). */
const LITERAL_SEGMENT = /^[^:*{}()[\]?+!\\]+$/;

/** The first two segments of a request path (fewer when the path has fewer), e.g. `/api/v1`. */
export function pathKey(pathname: string): string {
  const second = pathname.indexOf('/', 1);
  if (second === -1) return pathname;
  const third = pathname.indexOf('/', second + 1);
  const key = third === -1 ? pathname : pathname.slice(0, third);
  // `/healthz/` is `/healthz` to a non-strict route: an empty second segment is no segment.
  return key.length === second + 1 ? pathname.slice(0, second) : key;
}

/**
 * The key every path a route path matches has, or undefined when the route could match paths of
 * several keys (a parameter or wildcard in its first two segments, a path that is not a string).
 */
export function routePathKey(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  const segments = path.slice(1).split('/');
  // `/healthz` and `/healthz/` have one segment; `/api/v1/...` is keyed by its first two.
  const single = segments.slice(1).every((segment) => segment === '');
  const head = single ? segments.slice(0, 1) : segments.slice(0, 2);
  if (!head.every((segment) => LITERAL_SEGMENT.test(segment))) return undefined;
  return `/${head.join('/')}`;
}

/** The HTTP-verb registrations the index may group (OPTIONS and `all` stay in place: they answer OPTIONS). */
const GROUPED_METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head', 'search'] as const;
type GroupedMethod = (typeof GROUPED_METHODS)[number];
type Registration = { method: 'use' | GroupedMethod | 'options' | 'all'; args: unknown[] };

/**
 * Nest's Express adapter, with the routes grouped as they are registered (issue 15 item 7, issue 36
 * item 12). Express tries a request against every layer of its router in order: with ~300 routes, a
 * request to a route registered late (the npm registry, most of `/api/v2`) ran ~230 regular
 * expressions before its own. Here consecutive routes are put into one `express.Router()` per key
 * (the first two path segments: `/api/v1`, `/api/packages`, `/ocs/v2.php`), behind one middleware
 * that picks the router by the request's path, so a request tries only its group's routes.
 *
 * Only public interfaces: Nest registers every route and middleware through the adapter's verb
 * methods and `use()` (a documented extension point: custom HTTP adapters), and the groups are plain
 * `express.Router()`s. Routing is unchanged: routes whose paths share no key can never match the same
 * request, so their relative order does not matter; within a group the order is kept; a middleware,
 * an OPTIONS or `all` route, or a route that could match paths of several keys (`/:owner/:repo/...`)
 * ends the current section, and no route moves across it. Grouping needs a case-sensitive router
 * (keys are compared as strings); on another, routes are registered as they come.
 *
 * `deferUntilRoutes()` holds registrations (the API documentation's) until Nest registers its
 * not-found handler, i.e. behind every API route (issue 10 item 14).
 */
export class IndexedExpressAdapter extends ExpressAdapter {
  private section: Map<string, express.Router> | undefined;
  private deferring = false;
  private readonly deferred: Registration[] = [];
  private readonly sections: Map<string, unknown[]>[] = [];

  constructor(private readonly app: express.Express) {
    super(app);
    for (const method of GROUPED_METHODS) {
      (this as unknown as Record<string, (...args: unknown[]) => unknown>)[method] = (...args: unknown[]) =>
        this.register({ method, args });
    }
  }

  override use(...args: unknown[]): unknown {
    return this.register({ method: 'use', args });
  }

  override options(...args: unknown[]): unknown {
    return this.register({ method: 'options', args });
  }

  override all(...args: unknown[]): unknown {
    return this.register({ method: 'all', args });
  }

  /** Runs `register` with every registration it makes held back until the routes are registered. */
  deferUntilRoutes(register: () => void): void {
    this.deferring = true;
    try {
      register();
    } finally {
      this.deferring = false;
    }
  }

  override setNotFoundHandler(...args: Parameters<ExpressAdapter['setNotFoundHandler']>): unknown {
    for (const registration of this.deferred.splice(0)) this.register(registration);
    return super.setNotFoundHandler(...args);
  }

  /** The route paths of each section's groups, by key, in order (diagnostics and tests). */
  groups(): Map<string, unknown[]>[] {
    return this.sections;
  }

  private register(registration: Registration): unknown {
    if (this.deferring) {
      this.deferred.push(registration);
      return this;
    }
    const { method, args } = registration;
    const key =
      method !== 'use' && method !== 'options' && method !== 'all' && args.length >= 2
        ? routePathKey(args[0])
        : undefined;
    const strict = Boolean(this.app.get('strict routing'));
    if (key === undefined || !this.app.get('case sensitive routing')) {
      this.section = undefined;
      return (this.app[method] as (...a: unknown[]) => unknown).apply(this.app, args);
    }
    if (!this.section) this.openSection();
    let router = this.section!.get(key);
    if (!router) {
      router = express.Router({ caseSensitive: true, strict, mergeParams: false });
      this.section!.set(key, router);
    }
    (router[method as GroupedMethod] as (...a: unknown[]) => unknown).apply(router, args);
    const paths = this.sections[this.sections.length - 1]!;
    paths.set(key, [...(paths.get(key) ?? []), args[0]]);
    return this;
  }

  private openSection(): void {
    const routers = new Map<string, express.Router>();
    this.section = routers;
    this.sections.push(new Map());
    const dispatch: RequestHandler = function routeIndex(req: Request, res: Response, next: NextFunction) {
      if (req.method === 'OPTIONS') return next();
      const pathname = parseUrl(req)?.pathname;
      const router = pathname ? routers.get(pathKey(pathname)) : undefined;
      if (!router) return next();
      router(req, res, next);
    };
    this.app.use(dispatch);
  }
}

import express, { type NextFunction, type Request, type Response } from 'express';
import parseUrl from 'parseurl';

/** The parts of an Express (router 2) layer this file reads. */
interface RouteLayer {
  route?: { path?: unknown; methods?: Record<string, boolean> };
  handle?: unknown;
}

interface IndexableRouter {
  stack: RouteLayer[];
  caseSensitive?: boolean;
  strict?: boolean;
}

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
 * The key every path a route matches has, or undefined when the route could match paths of
 * several keys (a parameter or wildcard in its first two segments, a path that is not a string)
 * or answers OPTIONS itself.
 */
function routeKey(layer: RouteLayer): string | undefined {
  const route = layer.route;
  if (!route || typeof route.path !== 'string' || !route.path.startsWith('/')) return undefined;
  if (route.methods?.options || route.methods?._all) return undefined;
  const segments = route.path.slice(1).split('/');
  // `/healthz` and `/healthz/` have one segment; `/api/v1/...` is keyed by its first two.
  const single = segments.slice(1).every((segment) => segment === '');
  const head = single ? segments.slice(0, 1) : segments.slice(0, 2);
  if (!head.every((segment) => LITERAL_SEGMENT.test(segment))) return undefined;
  return `/${head.join('/')}`;
}

/**
 * Express tries a request against every layer of its router in order: with ~300 routes, a request
 * to a route registered late (the npm registry, most of `/api/v2`) ran ~230 regular expressions
 * before its own (issue 15 item 7). This groups the routes by the first two segments of their path
 * (`/api/v1`, `/api/packages`, `/ocs/v2.php`) into one sub-router per group, behind one layer that
 * picks the group by the request's path, so a request tries only its group's routes.
 *
 * Routing is unchanged: routes whose paths share no key can never match the same request, so their
 * relative order does not matter; within a group the order is kept; layers that could match paths of
 * several keys (middleware, `/:owner/:repo/...`, `/*splat`) stay where they are, and no route moves
 * across one. A grouped route never answers OPTIONS (such routes are not grouped), so OPTIONS requests
 * skip the groups and reach, as before, the application's not-found handler. Call once the
 * application is initialised (Nest registers its routes at init); routes added later are not grouped.
 */
export function indexRoutes(router: IndexableRouter): void {
  // Keys are compared as strings: a case-insensitive router would need them folded.
  if (!router.caseSensitive) return;
  const indexed: RouteLayer[] = [];
  let groups = new Map<string, RouteLayer[]>();
  const closeSection = () => {
    if (groups.size === 0) return;
    indexed.push(dispatchLayer(groups, router.strict ?? false));
    groups = new Map();
  };
  for (const layer of router.stack) {
    const key = routeKey(layer);
    if (key === undefined) {
      closeSection();
      indexed.push(layer);
      continue;
    }
    const group = groups.get(key);
    if (group) group.push(layer);
    else groups.set(key, [layer]);
  }
  closeSection();
  router.stack.splice(0, router.stack.length, ...indexed);
}

/** The route paths of each index layer's groups, by key (diagnostics and tests). */
const groupPaths = new WeakMap<object, Map<string, unknown[]>>();

/** For each index layer of a router, in order: its groups' route paths by key. */
export function indexedGroups(router: IndexableRouter): Map<string, unknown[]>[] {
  return router.stack.flatMap((layer) => {
    const groups = typeof layer.handle === 'function' ? groupPaths.get(layer.handle) : undefined;
    return groups ? [groups] : [];
  });
}

function dispatchLayer(groups: Map<string, RouteLayer[]>, strict: boolean): RouteLayer {
  const routers = new Map<string, express.Router>();
  for (const [key, layers] of groups) {
    const sub = express.Router({ caseSensitive: true, strict, mergeParams: false });
    (sub as unknown as IndexableRouter).stack.push(...layers);
    routers.set(key, sub);
  }
  const holder = express.Router();
  holder.use(function routeIndex(req: Request, res: Response, next: NextFunction) {
    if (req.method === 'OPTIONS') return next();
    const pathname = parseUrl(req)?.pathname;
    const sub = pathname ? routers.get(pathKey(pathname)) : undefined;
    if (!sub) return next();
    sub(req, res, next);
  });
  const layer = (holder as unknown as IndexableRouter).stack[0]!;
  groupPaths.set(
    layer.handle as object,
    new Map([...groups].map(([key, layers]) => [key, layers.map((l) => l.route?.path)])),
  );
  return layer;
}

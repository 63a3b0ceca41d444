import { SHARE_LEVELS, type ShareLevel } from '../template-definition';

/** Where a request to a workspace app goes (path-based or subdomain), before any lookup. */
export interface AppTarget {
  owner: string;
  workspace: string;
  /** The agent's name when the URL names one. */
  agent: string | null;
  /** An app slug, or a port number (port forwarding). */
  slugOrPort: string;
  /** The path the app sees (with the query); null when a path-based URL needs its trailing slash first. */
  path: string | null;
  /** The prefix the proxy strips (path-based: `/@owner/workspace/apps/slug`; subdomain: ``). */
  basePath: string;
  subdomain: boolean;
}

const PATH_APP = /^\/@([^/]+)\/([^/]+)\/apps\/([^/]+)(\/.*)?$/;
/** Name parts of a subdomain: Coder's `{app}--{agent}--{workspace}--{owner}`. */
const PART = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** A path-based app URL (`/@{owner}/{workspace}[.{agent}]/apps/{slug}/...`), or null. */
export function pathAppTarget(url: string): AppTarget | null {
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  const search = queryAt === -1 ? '' : url.slice(queryAt);
  const match = PATH_APP.exec(pathname);
  if (!match) return null;
  const owner = decode(match[1]!);
  const workspaceAndAgent = decode(match[2]!);
  const slug = decode(match[3]!);
  if (owner === null || workspaceAndAgent === null || slug === null) return null;
  const dot = workspaceAndAgent.indexOf('.');
  return {
    owner,
    workspace: dot === -1 ? workspaceAndAgent : workspaceAndAgent.slice(0, dot),
    agent: dot === -1 ? null : workspaceAndAgent.slice(dot + 1),
    slugOrPort: slug,
    path: match[4] === undefined ? null : match[4] + search,
    basePath: `/@${match[1]}/${match[2]}/apps/${match[3]}`,
    subdomain: false,
  };
}

/** A subdomain app request (`{app}--{agent}--{workspace}--{owner}<suffix>` in Host), or null. */
export function subdomainAppTarget(host: string | undefined, url: string, suffix: string): AppTarget | null {
  if (!host) return null;
  const name = host.toLowerCase().replace(/:\d+$/, '');
  if (!name.endsWith(suffix) || name.length === suffix.length) return null;
  const label = name.slice(0, -suffix.length);
  if (label.includes('.')) return null;
  const parts = label.split('--');
  if (parts.length !== 4 || !parts.every((part) => PART.test(part))) return null;
  const [app, agent, workspace, owner] = parts as [string, string, string, string];
  return {
    owner,
    workspace,
    agent,
    slugOrPort: app,
    path: url.startsWith('/') ? url : `/${url}`,
    basePath: '',
    subdomain: true,
  };
}

/** A port number in the app position (Coder's port forwarding), or null for a slug. */
export function forwardedPort(slugOrPort: string): number | null {
  if (!/^\d{1,5}$/.test(slugOrPort)) return null;
  const port = Number(slugOrPort);
  return port <= 65_535 ? port : null;
}

/** Ports the proxy never forwards to: below 1024, and the agent's own (the devplane forwarder inside the sandbox). */
export const AGENT_OWN_PORTS = new Set([47080]);

export function forwardablePort(port: number): boolean {
  return port >= 1024 && !AGENT_OWN_PORTS.has(port);
}

/** The narrower of an app's sharing level and its template's widest one (unknown values: owner). */
export function effectiveShare(share: string | undefined, max: string | undefined): ShareLevel {
  const rank = (level: string | undefined): number => {
    const index = SHARE_LEVELS.indexOf((level ?? 'owner') as ShareLevel);
    return index === -1 ? 0 : index;
  };
  return SHARE_LEVELS[Math.min(rank(share), rank(max))]!;
}

/**
 * Who may open an app at `level` (Coder's sharing levels): the owner and whoever may
 * `application_connect` the workspace (users it is shared with, site owners) always; `authenticated`
 * any signed-in user; `organization` members of the workspace's organization; `public` anyone.
 */
export function shareAdmits(
  level: ShareLevel,
  caller: { signedIn: boolean; canConnect: boolean; inOrganization: boolean },
): boolean {
  if (caller.canConnect) return true;
  if (level === 'public') return true;
  if (!caller.signedIn) return false;
  if (level === 'authenticated') return true;
  return level === 'organization' && caller.inOrganization;
}

/** Session credential names stripped from what the app sees (cookies, headers, query parameters). */
export const SESSION_COOKIES = ['service_session_token', 'coder_session_token', 'csrf_token'];
export const SESSION_HEADERS = ['service-session-token', 'coder-session-token'];

/** The Cookie header without the session cookies (undefined when nothing is left). */
export function stripSessionCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !SESSION_COOKIES.includes(part.split('=')[0]!.trim()));
  return kept.length > 0 ? kept.join('; ') : undefined;
}

/** The path without the session query parameters. */
export function stripSessionQuery(path: string): string {
  const queryAt = path.indexOf('?');
  if (queryAt === -1) return path;
  const params = new URLSearchParams(path.slice(queryAt + 1));
  let changed = false;
  for (const name of SESSION_COOKIES)
    if (params.has(name)) {
      params.delete(name);
      changed = true;
    }
  if (!changed) return path;
  const rest = params.toString();
  return path.slice(0, queryAt) + (rest ? `?${rest}` : '');
}

/** Whether a Set-Cookie of the app would set (or clear) a session cookie of devplane: such headers are dropped. */
export function setsSessionCookie(setCookie: string): boolean {
  return SESSION_COOKIES.includes(setCookie.split('=')[0]!.trim().toLowerCase());
}

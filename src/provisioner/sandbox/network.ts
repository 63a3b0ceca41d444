import { spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * A network of its own for each `sandbox`-mode workspace (issue 53 item 2): bubblewrap's `--unshare-net`
 * (loopback only), outbound through `slirp4netns --configure --disable-host-loopback` attached to the
 * sandbox's pid (`WORKSPACE_NETWORK_OUTBOUND`, default on). Devplane is reached through a forwarder:
 * outside, a root process listens on a Unix socket in a directory of the provisioner's state directory and
 * pipes each connection to the server's host:port; that directory is bound read-only at `/run/devplane`;
 * inside, a forwarder (the workspace's uid) listens on `127.0.0.1:INSIDE_PORT` and pipes to the socket.
 * `DEVPLANE_URL` inside is `http://127.0.0.1:INSIDE_PORT/`. The `user` and `none` modes keep the host network.
 */
export const INSIDE_PORT = 47080;
export const INSIDE_SOCKET_DIR = '/run/devplane';

export interface NetworkSetting {
  /** `WORKSPACE_NETWORK_OUTBOUND`: slirp4netns gives the namespace outbound traffic (default on). */
  outbound: boolean;
  /** slirp4netns is installed (without it: loopback only). */
  slirp: boolean;
  /** iproute2's `ip` and util-linux `nsenter` can make the private ranges unreachable (without: no outbound). */
  router: boolean;
  /** What `WEBHOOK_ALLOWED_HOST_LIST` lets workspaces reach beyond public addresses (the webhooks' rule). */
  allowed: OutboundAllowance;
}

/** The private-range part of the webhooks' outbound rule, as routes can express it. */
export interface OutboundAllowance {
  /** `private` or `*`: every private range (the host's own addresses and loopback stay unreachable). */
  allPrivate: boolean;
  /** CIDRs (IPv4) of the list: routed even inside a blocked range. */
  cidrs: string[];
}

/**
 * `WEBHOOK_ALLOWED_HOST_LIST` (Gitea's `webhook.ALLOWED_HOST_LIST`: `external` (default), `private`, `loopback`,
 * `*`, host globs, CIDRs) read for workspaces: `private` and `*` open the private ranges, CIDRs open themselves.
 * Host names and globs cannot be routed and are ignored here; `loopback` never applies to workspaces (the
 * host's loopback is the server, its database and the other workspaces' forwarders).
 */
export function allowanceFrom(env: NodeJS.ProcessEnv): OutboundAllowance {
  const allowed: OutboundAllowance = { allPrivate: false, cidrs: [] };
  for (const raw of (env.WEBHOOK_ALLOWED_HOST_LIST ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === 'private' || entry === '*') allowed.allPrivate = true;
    else if (entry.includes('/') && ipaddr.isValidCIDR(entry)) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      if (address.kind() === 'ipv4')
        allowed.cidrs.push(`${ipaddr.IPv4.networkAddressFromCIDR(entry).toString()}/${bits}`);
    }
  }
  return allowed;
}

/** The slirp4netns gateway inside the namespace (the host's loopback behind it is disabled). */
const SLIRP_GATEWAY = '10.0.2.2';

/**
 * The `ip -batch` lines that make every non-public IPv4 range unreachable inside a sandbox's namespace (the
 * ranges `isPublicAddress` refuses for webhooks, from ipaddr.js), except what the allowance opens, and the
 * host's own addresses always (a service bound to 0.0.0.0 on the host is not the workspace's). slirp4netns'
 * own network (10.0.2.0/24: its gateway and DNS) stays reachable: its route is more specific. IPv6 has no
 * route at all (slirp4netns runs without `--enable-ipv6`).
 */
export function outboundRoutes(allowed: OutboundAllowance, hostAddresses = ownAddresses()): string[] {
  const lines: string[] = [];
  if (!allowed.allPrivate) {
    // ipaddr.js' table of IPv4 ranges (not in its typings): every range that is not `unicast`.
    const special = (
      ipaddr.IPv4.prototype as unknown as {
        SpecialRanges: Record<string, [ipaddr.IPv4, number] | [ipaddr.IPv4, number][]>;
      }
    ).SpecialRanges;
    for (const [name, value] of Object.entries(special)) {
      if (name === 'loopback') continue; // the namespace's own `lo` (the local table decides it first)
      const ranges = (Array.isArray(value[0]) ? value : [value]) as [ipaddr.IPv4, number][];
      for (const [address, bits] of ranges) lines.push(`route add unreachable ${address.toString()}/${bits}`);
    }
    for (const cidr of allowed.cidrs) lines.push(`route replace ${cidr} via ${SLIRP_GATEWAY} dev tap0`);
  }
  for (const address of hostAddresses) lines.push(`route replace unreachable ${address}/32`);
  return lines;
}

/** This host's own non-loopback IPv4 addresses. */
function ownAddresses(): string[] {
  const out = new Set<string>();
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? [])
      if (entry.family === 'IPv4' && !entry.internal && ipaddr.IPv4.isValidFourPartDecimal(entry.address))
        out.add(entry.address);
  return [...out];
}

/** What a sandbox launch needs for its network (SandboxSpec.network). */
export interface SandboxNetwork {
  /** A new directory (made by the launch, root's) for the server socket: bound at /run/devplane. */
  socketDir: string;
  serverHost: string;
  serverPort: number;
  /** Start slirp4netns (outbound on and installed). */
  slirp: boolean;
  /** `ip -batch` lines run in the namespace before anything inside runs (see {@link outboundRoutes}). */
  routes: string[];
}

export function networkFrom(env: NodeJS.ProcessEnv): NetworkSetting {
  const raw = (env.WORKSPACE_NETWORK_OUTBOUND ?? '').trim().toLowerCase();
  if (!['', 'true', 'false', '1', '0', 'on', 'off', 'yes', 'no'].includes(raw))
    throw new Error('WORKSPACE_NETWORK_OUTBOUND must be true or false');
  const outbound = !['false', '0', 'off', 'no'].includes(raw);
  const probe = spawnSync('slirp4netns', ['--version'], { stdio: 'ignore', timeout: 10_000 });
  const works = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
    return !result.error && result.status === 0;
  };
  return {
    outbound,
    slirp: !probe.error && probe.status === 0,
    router: works('ip', ['-V']) && works('nsenter', ['--version']),
    allowed: allowanceFrom(env),
  };
}

/** Whether sandboxes get outbound traffic: wanted, slirp4netns there, and the private ranges can be closed. */
export function outboundOn(setting: NetworkSetting): boolean {
  return setting.outbound && setting.slirp && setting.router;
}

export function networkBanner(setting: NetworkSetting): string {
  const reach = setting.allowed.allPrivate
    ? "private ranges open by WEBHOOK_ALLOWED_HOST_LIST, the host's own addresses closed"
    : `public addresses only${setting.allowed.cidrs.length ? ` and ${setting.allowed.cidrs.join(', ')}` : ''} (WEBHOOK_ALLOWED_HOST_LIST)`;
  const what = !setting.outbound
    ? 'loopback only (WORKSPACE_NETWORK_OUTBOUND=false)'
    : !setting.slirp
      ? 'loopback only: slirp4netns (Debian package slirp4netns) is not installed, no outbound traffic'
      : !setting.router
        ? 'loopback only: iproute2 (ip) or util-linux (nsenter) is missing, so private ranges cannot be closed: no outbound traffic'
        : `outbound through slirp4netns (host loopback disabled; ${reach}; WORKSPACE_NETWORK_OUTBOUND=true)`;
  return `devplane: workspace network (sandbox mode): a network namespace per workspace, devplane at http://127.0.0.1:${INSIDE_PORT}/ inside; ${what}\n`;
}

/** The URL workspace code and the agent use inside the namespace (the server URL's path kept). */
export function insideUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  return `http://127.0.0.1:${INSIDE_PORT}${url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`}`;
}

/** host and port of the server URL (what the outside forwarder connects to). */
export function serverAddress(serverUrl: string): { serverHost: string; serverPort: number } {
  const url = new URL(serverUrl);
  const serverPort = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { serverHost: url.hostname.replace(/^\[(.*)\]$/, '$1'), serverPort };
}

/**
 * Outside (root): `node -e OUTSIDE <config json> bwrap ...`. Listens on `<socketDir>/server.sock` (pipes to
 * the server), runs bubblewrap with `--info-fd 3` (the sandbox's pid) and `--block-fd 4` (the sandbox waits
 * until slirp4netns configured the namespace), and keeps forwarding until the namespace's processes ended
 * (bubblewrap itself ends at once on SIGTERM; the agent still reports `off` through the forwarder).
 */
export const OUTSIDE_FORWARDER = String.raw`
const net = require('net'), fs = require('fs'), cp = require('child_process');
const cfg = JSON.parse(process.argv[1]);
const [command, ...args] = process.argv.slice(2);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => undefined);
fs.mkdirSync(cfg.socketDir, { recursive: true, mode: 0o755 });
fs.chmodSync(cfg.socketDir, 0o755);
// A Unix socket's path is at most 107 bytes: bound relative to its directory.
const cwd = process.cwd();
process.chdir(cfg.socketDir);
const socket = 'server.sock';
const server = net.createServer((inner) => {
  const outer = net.connect(cfg.serverPort, cfg.serverHost);
  inner.pipe(outer).pipe(inner);
  inner.on('error', () => outer.destroy());
  outer.on('error', () => inner.destroy());
});
let slirp, sandboxPid = 0, released = false;
const running = (pid) => { try { const s = fs.readFileSync('/proc/' + pid + '/stat', 'utf8'); const st = s.slice(s.lastIndexOf(')') + 2).split(' ')[0]; return st !== 'Z' && st !== 'X'; } catch { return false; } };
server.listen(socket, () => {
  fs.chmodSync(socket, 0o666);
  const child = cp.spawn(command, args, { cwd, stdio: ['inherit', 'inherit', 'inherit', 'pipe', 'pipe'] });
  const release = () => { if (!released) { released = true; child.stdio[4].end('1'); } };
  child.stdio[4].on('error', () => undefined);
  let info = '';
  child.stdio[3].on('data', (chunk) => {
    info += chunk;
    const match = /"child-pid":\s*(\d+)/.exec(info);
    if (!match || sandboxPid) return;
    sandboxPid = Number(match[1]);
    if (!cfg.slirp) return release();
    slirp = cp.spawn('slirp4netns', ['--configure', '--disable-host-loopback', '--mtu', '65520', '--ready-fd', '3', String(sandboxPid), 'tap0'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    // Fail closed: outbound is given only once the private ranges are unreachable in the namespace.
    const closed = () => { if (slirp) slirp.kill('SIGKILL'); release(); };
    let routed = false;
    const route = () => {
      if (routed) return;
      routed = true;
      const ip = cp.spawn('nsenter', ['-t', String(sandboxPid), '-n', 'ip', '-batch', '-'], { stdio: ['pipe', 'ignore', 'ignore'] });
      ip.on('error', closed);
      ip.on('exit', (code) => (code === 0 ? release() : closed()));
      ip.stdin.on('error', () => undefined);
      ip.stdin.end(cfg.routes.map((line) => line + '\n').join(''));
    };
    slirp.on('error', closed);
    slirp.on('exit', closed);
    slirp.stdio[3].on('data', route);
    setTimeout(() => { if (!released) closed(); }, 10000).unref();
  });
  const end = (code) => {
    if (slirp) slirp.kill('SIGKILL');
    server.close();
    fs.rmSync(cfg.socketDir, { recursive: true, force: true });
    process.exit(code);
  };
  child.on('error', () => end(127));
  child.on('exit', (code, signal) => {
    const result = code ?? 128;
    const started = Date.now();
    const wait = () => (sandboxPid && running(sandboxPid) && Date.now() - started < 30000 ? setTimeout(wait, 50) : end(result));
    wait();
  });
});
`;

/**
 * Inside (the workspace's uid): `node -e INSIDE <port> <socket> <command...>`: listens on 127.0.0.1:<port>,
 * pipes each connection to the server socket, runs the command and ends with it.
 */
export const INSIDE_FORWARDER = String.raw`
const net = require('net'), cp = require('child_process');
const [port, socket, command, ...args] = process.argv.slice(1);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => undefined);
const server = net.createServer((inner) => {
  const outer = net.connect(socket);
  inner.pipe(outer).pipe(inner);
  inner.on('error', () => outer.destroy());
  outer.on('error', () => inner.destroy());
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = cp.spawn(command, args, { stdio: 'inherit' });
  child.on('error', () => process.exit(127));
  child.on('exit', (code, signal) => process.exit(code ?? 128));
});
`;

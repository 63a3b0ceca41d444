import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import picomatch from 'picomatch';
import { isPublicAddress, type Resolver, systemResolver } from './private-address';

/**
 * Gitea's `ALLOWED_HOST_LIST` (modules/hostmatcher) as a reusable matcher: a comma-separated list of
 * - `external`: global unicast addresses that are not private (the platform's `isPublicAddress`);
 * - `private`: RFC 1918, unique-local `fc00::/7`, CGNAT and the other special-purpose ranges
 *   (everything `isPublicAddress` refuses except loopback, link-local, unspecified and multicast);
 * - `loopback`: `127.0.0.0/8`, `::1` (and `localhost`, which resolves there);
 * - `*`: every host and address;
 * - a CIDR (`10.0.0.0/8`, `fd00::/8`): addresses in it;
 * - anything else: a host name glob (`*.example.com`, `hooks.internal`), matched case-insensitively
 *   against the URL's host name and against the address's text.
 * A host passes when its NAME matches a glob, or the ADDRESS it connects to matches a builtin, a CIDR
 * or a glob (Gitea's MatchHostOrIP). Empty entries are ignored; an empty list allows nothing.
 */
export interface AllowedHostList {
  /** The setting's value as given (for messages). */
  readonly value: string;
  matchHostName(hostname: string): boolean;
  matchAddress(address: string): boolean;
  /** Gitea's MatchHostOrIP: the name matches a glob, or the address is allowed. */
  allows(hostname: string, address: string): boolean;
}

export const BUILTIN_HOST_CLASSES = ['loopback', 'private', 'external'] as const;
type Builtin = (typeof BUILTIN_HOST_CLASSES)[number];

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return null;
  }
}

function isLoopback(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return ip.range() === 'loopback';
}

/** Ranges that are neither external nor private in Gitea's sense (never "private" by that builtin). */
const NOT_PRIVATE_RANGES = new Set(['loopback', 'linkLocal', 'unspecified', 'multicast', 'broadcast']);

function isPrivate(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (isPublicAddress(ip.toString())) return false;
  return !NOT_PRIVATE_RANGES.has(ip.range());
}

function normaliseHost(hostname: string): string {
  return hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
}

/** A problem with one entry of the setting (boot refuses it), or null. */
export function allowedHostListProblem(value: string): string | null {
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry || entry.includes('/') === false) continue;
    try {
      ipaddr.parseCIDR(entry);
    } catch {
      return `"${raw.trim()}" is neither a CIDR nor a host name pattern`;
    }
  }
  return null;
}

export function parseAllowedHostList(value: string): AllowedHostList {
  const builtins = new Set<Builtin>();
  const cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const globs: ((text: string) => boolean)[] = [];
  let everything = false;
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') everything = true;
    if ((BUILTIN_HOST_CLASSES as readonly string[]).includes(entry)) {
      builtins.add(entry as Builtin);
      continue;
    }
    if (entry.includes('/')) {
      try {
        cidrs.push(ipaddr.parseCIDR(entry));
      } catch {
        // not a CIDR: allowedHostListProblem refuses it at boot; ignored here
      }
      continue;
    }
    globs.push(picomatch(entry, { nocase: true, dot: true }));
  }

  const matchHostName = (hostname: string): boolean => {
    const host = normaliseHost(hostname);
    return everything || globs.some((glob) => glob(host));
  };
  const matchAddress = (address: string): boolean => {
    if (everything) return true;
    const ip = parseAddress(address);
    if (!ip) return false;
    if (globs.some((glob) => glob(ip.toString()))) return true;
    if (builtins.has('external') && isPublicAddress(ip.toString())) return true;
    if (builtins.has('private') && isPrivate(ip)) return true;
    if (builtins.has('loopback') && isLoopback(ip)) return true;
    return cidrs.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits));
  };
  return {
    value,
    matchHostName,
    matchAddress,
    allows: (hostname, address) => matchHostName(hostname) || matchAddress(address),
  };
}

/** A connection refused by an allowed-host list (the address the name resolved to, or the literal). */
export class DisallowedHostError extends Error {
  readonly code = 'EDISALLOWEDHOST';
}

/** Whether a URL host is an IP literal (Node connects to those without calling `lookup`). */
export function isAddressLiteral(hostname: string): boolean {
  return ipaddr.isValid(hostname.replace(/^\[|\]$/g, ''));
}

/**
 * Checks a literal-address host before connecting (Node skips `lookup` for those); names are checked
 * at connect time by {@link allowedHostLookup}. Throws {@link DisallowedHostError}.
 */
export function assertLiteralHostAllowed(list: AllowedHostList, hostname: string, setting: string): void {
  if (!isAddressLiteral(hostname)) return;
  const address = hostname.replace(/^\[|\]$/g, '');
  if (!list.allows(address, address))
    throw new DisallowedHostError(disallowedText(setting, hostname, address));
}

function disallowedText(setting: string, host: string, address: string): string {
  return `webhook can only call allowed HTTP servers (check your ${setting} setting), deny '${host}(${address})'`;
}

/**
 * A `lookup` for `http.request` that keeps only the DNS answers the list allows and fails with
 * {@link DisallowedHostError} when none is left: the check runs on the address the socket connects
 * to, at connect time, so a name that rebinds to another address between a check and the connection
 * cannot pass.
 */
export function allowedHostLookup(options: {
  list: () => AllowedHostList;
  setting: string;
  resolve?: () => Resolver;
}): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const resolve = options.resolve?.() ?? systemResolver;
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = options.list();
      if (lookupOptions.family) addresses = addresses.filter((a) => a.family === lookupOptions.family);
      const allowed = addresses.filter((a) => list.allows(hostname, a.address));
      if (allowed.length === 0)
        return callback(
          new DisallowedHostError(disallowedText(options.setting, hostname, addresses[0]?.address ?? '')),
          '',
          0,
        );
      if (lookupOptions.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

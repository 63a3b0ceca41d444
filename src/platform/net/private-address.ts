import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one private-range check for outbound connections (workflow webhooks today; repository
 * migrations and the AI gateway's CONNECT proxy reuse it). An address is allowed only when it is
 * global unicast. IPv6 forms that carry an IPv4 address are judged as that IPv4 address:
 * IPv4-mapped (`::ffff:127.0.0.1`, `::ffff:7f00:1`) and the deprecated IPv4-compatible form
 * (`::127.0.0.1`, which the URL parser writes as `::7f00:1` and ipaddr.js calls unicast).
 * Refused: loopback, private (RFC 1918), link-local, unique-local, CGNAT, unspecified, multicast,
 * broadcast, documentation/benchmark/reserved ranges, NAT64, 6to4, Teredo.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const parts = v6.parts;
    // ::/96 (IPv4-compatible): the last 32 bits are an IPv4 address (:: and ::1 are caught by their own ranges below).
    if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) {
      const v4 = new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
      return v4.range() === 'unicast';
    }
  }
  return parsed.range() === 'unicast';
}

/** The negation, for readability at call sites: anything that is not global unicast (or not an IP). */
export function isPrivateAddress(address: string): boolean {
  return !isPublicAddress(address);
}

/**
 * A host name (as in `URL.hostname`) that is a private literal address or `localhost` (with or
 * without the trailing dot, any `*.localhost`). Other names are not judged here: their DNS answer is
 * checked at connect time by {@link guardedLookup}, so a rebinding name cannot slip through.
 */
export function isPrivateHost(hostname: string): boolean {
  // Without the brackets of an IPv6 literal and the trailing dots of a fully qualified name (`localhost.`).
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  return isPrivateAddress(host);
}

/** A connection refused because the peer's address is not public. */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

export type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/**
 * A `lookup` for `http.request`/`net.connect` that drops every private answer of the DNS and fails
 * with {@link PrivateAddressError} when none is left. The check runs on the address the socket
 * will connect to, at connect time (safe against DNS rebinding). Literal IP hosts skip `lookup` in
 * Node: check them with {@link isPrivateHost} before connecting.
 */
export function guardedLookup(options: { allowPrivate: boolean; resolve?: () => Resolver }): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const resolve = options.resolve?.() ?? systemResolver;
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      if (lookupOptions.family) addresses = addresses.filter((a) => a.family === lookupOptions.family);
      const allowed = options.allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0)
        return callback(new PrivateAddressError(`${hostname} resolves to a private address`), '', 0);
      if (lookupOptions.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  // A proxy on IPv4 shows up as an IPv4-mapped IPv6 peer on a dual-stack socket.
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/**
 * Express's `trust proxy` from TRUSTED_PROXIES: `false` (X-Forwarded-For is ignored, the client
 * address is the socket's) unless ranges are configured; then a peer is trusted only when it lies in
 * one of them, so a client cannot choose the address the rate limits and request checks see.
 */
export function trustProxySetting(entries: readonly string[]): false | ((address: string) => boolean) {
  if (entries.length === 0) return false;
  const ranges: Range[] = entries.map((entry) => {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return [
        address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
          ? (address as ipaddr.IPv6).toIPv4Address()
          : address,
        bits,
      ];
    }
    const address = normalise(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
  return (peer: string) => {
    let address: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      address = normalise(peer);
    } catch {
      return false;
    }
    return ranges.some(
      ([base, bits]) => base.kind() === address.kind() && address.match([base, bits] as never),
    );
  };
}

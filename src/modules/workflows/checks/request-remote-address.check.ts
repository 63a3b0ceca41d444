import ipaddr from 'ipaddr.js';
import { CHECK_PREFIX, SCOPE_ADMIN, SCOPE_USER } from '../workflow.constants';
import { CheckInvalidError, OPERATOR_INVALID, type CheckDefinition } from './check.types';

const OPERATORS = ['matchesIPv4', '!matchesIPv4', 'matchesIPv6', '!matchesIPv6'];

/** The client address as ipaddr sees it; `::ffff:a.b.c.d` becomes IPv4. */
export function parseClientAddress(address: string | null | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!address) return null;
  try {
    return ipaddr.process(address.replace(/%.*$/, ''));
  } catch {
    return null;
  }
}

/** One parse per event, however many rules test the address. */
const parsedClients = new WeakMap<object, ipaddr.IPv4 | ipaddr.IPv6 | null>();
function clientOf(request: { remoteAddress: string | null } | null): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!request) return null;
  let parsed = parsedClients.get(request);
  if (parsed === undefined) {
    parsed = parseClientAddress(request.remoteAddress);
    parsedClients.set(request, parsed);
  }
  return parsed;
}

/** Nextcloud's RequestRemoteAddress: IPv4/IPv6 CIDR ranges. */
export const RequestRemoteAddressCheck: CheckDefinition = {
  id: `${CHECK_PREFIX}RequestRemoteAddress`,
  name: 'Request remote address',
  operators: OPERATORS,
  valueFormat:
    'CIDR range: a.b.c.d/1-32 for the IPv4 operators, an IPv6 address/1-128 for the IPv6 operators',
  examples: ['127.0.0.1/31', '10.0.0.0/8', '2001:db8::/32'],
  supportedEntities: [],
  scopes: [SCOPE_ADMIN, SCOPE_USER],
  validate(operator, value) {
    if (!OPERATORS.includes(operator)) throw new CheckInvalidError(OPERATOR_INVALID);
    const parts = value.split('/');
    if (parts.length !== 2) throw new CheckInvalidError('The given IP range is invalid');
    const [address, prefixText] = parts as [string, string];
    const prefix = /^[0-9]+$/.test(prefixText) ? Number(prefixText) : NaN;
    if (operator.endsWith('IPv4')) {
      if (!ipaddr.IPv4.isValidFourPartDecimal(address) || !(prefix >= 1 && prefix <= 32)) {
        throw new CheckInvalidError('The given IP range is not valid for IPv4');
      }
    } else if (address.includes('%') || !ipaddr.IPv6.isValid(address) || !(prefix >= 1 && prefix <= 128)) {
      throw new CheckInvalidError('The given IP range is not valid for IPv6');
    }
  },
  compile(operator, value) {
    const [address, prefixText] = value.split('/') as [string, string];
    const negate = operator.startsWith('!');
    let range: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      range = operator.endsWith('IPv4') ? ipaddr.IPv4.parse(address) : ipaddr.IPv6.parse(address);
    } catch {
      return () => false;
    }
    const prefix = Number(prefixText);
    return (s) => {
      const client = clientOf(s.request);
      let hit = false;
      if (client) {
        if (range.kind() === 'ipv4')
          hit = client.kind() === 'ipv4' && (client as ipaddr.IPv4).match(range as ipaddr.IPv4, prefix);
        else {
          const six =
            client.kind() === 'ipv6'
              ? (client as ipaddr.IPv6)
              : (client as ipaddr.IPv4).toIPv4MappedAddress();
          hit = six.match(range as ipaddr.IPv6, prefix);
        }
      }
      return negate ? !hit : hit;
    };
  },
};

import type { LookupAddress } from 'node:dns';
import {
  allowedHostListProblem,
  allowedHostLookup,
  assertLiteralHostAllowed,
  DisallowedHostError,
  parseAllowedHostList,
} from '../../../src/platform/net/allowed-host-list';

/** Gitea's webhook.ALLOWED_HOST_LIST values (modules/hostmatcher) as devplane's platform/net matcher. */
describe('allowed host list', () => {
  it('external (the default) takes public addresses only', () => {
    const list = parseAllowedHostList('external');
    expect(list.matchAddress('93.184.216.34')).toBe(true);
    expect(list.matchAddress('2606:4700::1111')).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ])
      expect([address, list.matchAddress(address)]).toEqual([address, false]);
  });

  it('loopback, private, CIDRs, host globs and *', () => {
    const loopback = parseAllowedHostList('loopback');
    expect(loopback.matchAddress('127.0.0.1')).toBe(true);
    expect(loopback.matchAddress('::1')).toBe(true);
    expect(loopback.matchAddress('10.0.0.1')).toBe(false);
    const priv = parseAllowedHostList('private');
    expect(priv.matchAddress('10.0.0.1')).toBe(true);
    expect(priv.matchAddress('172.16.5.4')).toBe(true);
    expect(priv.matchAddress('fd12::1')).toBe(true);
    expect(priv.matchAddress('127.0.0.1')).toBe(false);
    expect(priv.matchAddress('8.8.8.8')).toBe(false);
    const cidr = parseAllowedHostList(' 192.168.7.0/24 , fd00::/8');
    expect(cidr.matchAddress('192.168.7.9')).toBe(true);
    expect(cidr.matchAddress('192.168.8.9')).toBe(false);
    expect(cidr.matchAddress('fd00::5')).toBe(true);
    const globs = parseAllowedHostList('*.internal.example, hooks.local');
    expect(globs.allows('ci.internal.example', '10.0.0.1')).toBe(true);
    expect(globs.allows('HOOKS.local', '10.0.0.2')).toBe(true);
    expect(globs.allows('evil.example', '10.0.0.1')).toBe(false);
    expect(parseAllowedHostList('*').allows('anything', '127.0.0.1')).toBe(true);
    expect(parseAllowedHostList('').allows('anything', '8.8.8.8')).toBe(false);
  });

  it('refuses a setting entry that is neither a CIDR nor a host pattern', () => {
    expect(allowedHostListProblem('external,10.0.0.0/8')).toBeNull();
    expect(allowedHostListProblem('10.0.0.0/99')).toContain('10.0.0.0/99');
  });

  it('checks literal addresses before connecting', () => {
    const list = parseAllowedHostList('external');
    expect(() => assertLiteralHostAllowed(list, '127.0.0.1', 'S')).toThrow(DisallowedHostError);
    expect(() => assertLiteralHostAllowed(list, '[::1]', 'S')).toThrow(DisallowedHostError);
    expect(() => assertLiteralHostAllowed(list, '93.184.216.34', 'S')).not.toThrow();
    expect(() => assertLiteralHostAllowed(list, 'example.com', 'S')).not.toThrow(); // left to the lookup
  });

  it('filters the DNS answer at connect time: a name rebinding to a private address cannot connect', async () => {
    const answers: Record<string, LookupAddress[]> = {
      'rebind.example': [{ address: '127.0.0.1', family: 4 }],
      'mixed.example': [
        { address: '10.0.0.1', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ],
    };
    const lookup = allowedHostLookup({
      list: () => parseAllowedHostList('external'),
      setting: 'WEBHOOK_ALLOWED_HOST_LIST',
      resolve: () => (hostname, callback) => callback(null, answers[hostname] ?? []),
    });
    const run = (host: string) =>
      new Promise<{ error: Error | null; address: string }>((resolve) =>
        lookup(host, {}, (error, address) => resolve({ error, address: address as string })),
      );
    const refused = await run('rebind.example');
    expect(refused.error).toBeInstanceOf(DisallowedHostError);
    expect(refused.error?.message).toContain('WEBHOOK_ALLOWED_HOST_LIST');
    expect(await run('mixed.example')).toEqual({ error: null, address: '93.184.216.34' });
  });
});

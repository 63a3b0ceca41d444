import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookSender } from '../../src/modules/workflows/operations/webhook-sender.service';
import { loadWorkflowsConfig } from '../../src/modules/workflows/workflows.config';
import {
  guardedLookup,
  isPrivateHost,
  isPublicAddress,
  type Resolver,
} from '../../src/platform/net/private-address';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { bearer, check, notifyRule, ocs, WEBHOOK, WF } from '../workflows/helpers';

/**
 * Issue 11 item 10: `[::127.0.0.1]` (IPv4-compatible IPv6, written `::7f00:1` by the URL parser)
 * passed the webhook address check. IPv4-compatible and IPv4-mapped IPv6 are judged as their IPv4
 * address, in the one private-range check (platform/net/private-address.ts).
 */
describe('11.10 private-address check: IPv6 forms of IPv4 addresses and the other private ranges', () => {
  const privateHosts: [string, string][] = [
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 loopback, other address', '127.1.2.3'],
    ['IPv6 loopback', '::1'],
    ['IPv6 loopback in brackets', '[::1]'],
    ['IPv4-compatible loopback (dotted)', '::127.0.0.1'],
    ['IPv4-compatible loopback (as the URL parser writes it)', '::7f00:1'],
    ['IPv4-compatible loopback, long form', '0:0:0:0:0:0:7f00:1'],
    ['IPv4-compatible loopback in brackets', '[::127.0.0.1]'],
    ['IPv4-compatible private', '::10.0.0.1'],
    ['IPv4-compatible private (hex)', '::a00:1'],
    ['IPv4-compatible metadata address', '::169.254.169.254'],
    ['IPv4-compatible CGNAT', '::100.64.0.1'],
    ['IPv4-compatible 0.0.0.0/8', '::0.0.0.2'],
    ['IPv4-mapped loopback (dotted)', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback (hex)', '::ffff:7f00:1'],
    ['IPv4-mapped private', '::ffff:192.168.0.1'],
    ['IPv4-mapped metadata address (hex)', '::ffff:a9fe:a9fe'],
    ['IPv4-translated (RFC 6145)', '::ffff:0:7f00:1'],
    ['NAT64 of loopback', '64:ff9b::7f00:1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['RFC 1918 10/8', '10.1.2.3'],
    ['RFC 1918 172.16/12', '172.31.255.1'],
    ['RFC 1918 192.168/16', '192.168.1.1'],
    ['link-local IPv4 (metadata)', '169.254.169.254'],
    ['link-local IPv6', 'fe80::1'],
    ['link-local IPv6 with zone', 'fe80::1%eth0'],
    ['unique-local fc00::/7', 'fd12:3456:789a::1'],
    ['unique-local fc00::/8', 'fc00::1'],
    ['CGNAT', '100.64.0.1'],
    ['unspecified IPv4', '0.0.0.0'],
    ['unspecified IPv6', '::'],
    ['multicast IPv4', '224.0.0.1'],
    ['multicast IPv6', 'ff02::1'],
    ['broadcast', '255.255.255.255'],
    ['documentation range', '2001:db8::1'],
    ['decimal loopback', '2130706433'],
    ['hex loopback', '0x7f.1'],
    ['localhost', 'localhost'],
    ['localhost. (fully qualified)', 'localhost.'],
    ['LOCALHOST (case)', 'LOCALHOST'],
    ['a name under .localhost', 'api.localhost'],
  ];
  it.each(privateHosts)('%s (%s) is private', (_name, host) => {
    expect(isPrivateHost(host)).toBe(true);
  });

  const publicAddresses: [string, string][] = [
    ['public IPv4', '8.8.8.8'],
    ['public IPv6', '2606:4700:4700::1111'],
    ['IPv4-mapped public', '::ffff:8.8.8.8'],
    ['IPv4-compatible public (its IPv4 address)', '::8.8.8.8'],
  ];
  it.each(publicAddresses)('%s (%s) is public', (_name, address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(isPrivateHost(address)).toBe(false);
  });

  it('a DNS name is not judged by its spelling (its answer is, at connect time); garbage is not public', () => {
    expect(isPrivateHost('hooks.example.com')).toBe(false);
    expect(isPublicAddress('hooks.example.com')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
  });

  it('the connect-time lookup drops private answers of every form and fails when none is left', async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      'mixed.test': [
        { address: '::127.0.0.1', family: 6 },
        { address: '::ffff:10.0.0.1', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ],
      'compat.test': [{ address: '::7f00:1', family: 6 }],
    };
    const resolve: Resolver = (host, callback) => callback(null, answers[host] ?? []);
    const lookup = guardedLookup({ allowPrivate: false, resolve: () => resolve });
    const all = await new Promise<unknown>((done, fail) =>
      lookup('mixed.test', { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))),
    );
    expect(all).toEqual([{ address: '93.184.216.34', family: 4 }]);
    const refused = await new Promise<Error | null>((done) =>
      lookup('compat.test', {}, (error) => done(error)),
    );
    expect(refused?.message).toBe('compat.test resolves to a private address');
  });

  describe('the workflow webhook uses it', () => {
    let t: TestApp;
    let token: string;
    let server: http.Server;
    let port: number;
    let received = 0;
    beforeAll(async () => {
      t = await createTestApp();
      token = (await t.factories.admin()).token;
      server = http.createServer((_req, res) => {
        received++;
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    });

    const urls = [
      'http://[::127.0.0.1]/hook',
      'http://[::7f00:1]:8080/hook',
      'http://[0:0:0:0:0:0:127.0.0.1]/hook',
      'http://[::10.0.0.1]/hook',
      'http://[::169.254.169.254]/latest/meta-data',
      'http://[::ffff:7f00:1]/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://100.64.1.1/hook',
      'http://[::]/hook',
      'http://0.0.0.0/hook',
    ];
    it.each(urls)('a rule with %s → 400 "points to a private address", nothing stored', async (url) => {
      const before = await ocs(t, 'get', `${WF}/global`, bearer(token));
      const res = await ocs(t, 'post', `${WF}/global`, bearer(token), {
        ...notifyRule({ name: 'hook', checks: [check('FileName', 'is', 'x')] }),
        class: WEBHOOK,
        operation: JSON.stringify({ url }),
      });
      expect(res.status).toBe(400);
      expect(res.body.ocs.meta.message).toBe('The webhook URL points to a private address');
      expect((await ocs(t, 'get', `${WF}/global`, bearer(token))).body).toEqual(before.body);
    });

    it('at send time: a literal IPv4-compatible address is refused before connecting, a name resolving to one at connect time', async () => {
      const sender = new WebhookSender({
        ...loadWorkflowsConfig({}),
        webhookAllowPrivate: false,
        webhookTimeoutMs: 1000,
        webhookRetries: 2,
        webhookBackoffMs: 1,
      });
      expect(await sender.deliver({ url: `http://[::127.0.0.1]:${port}/x`, body: {} })).toMatchObject({
        delivered: false,
        attempts: 0,
        error: 'private address refused',
      });
      for (const address of ['::127.0.0.1', '::7f00:1', '::ffff:127.0.0.1']) {
        sender.resolve = (_host, callback) => callback(null, [{ address, family: 6 }]);
        const result = await sender.deliver({ url: `http://rebind.example.test:${port}/x`, body: {} });
        expect([address, result]).toEqual([
          address,
          { delivered: false, attempts: 1, error: 'rebind.example.test resolves to a private address' },
        ]);
      }
      expect(received).toBe(0);
      // The same name answering the receiver's IPv4 address is delivered once private addresses are allowed (the receiver is real).
      const open = new WebhookSender({
        ...loadWorkflowsConfig({}),
        webhookAllowPrivate: true,
        webhookTimeoutMs: 1000,
        webhookRetries: 0,
        webhookBackoffMs: 1,
      });
      open.resolve = (_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
      expect(await open.deliver({ url: `http://rebind.example.test:${port}/x`, body: {} })).toMatchObject({
        delivered: true,
        status: 200,
      });
      expect(received).toBe(1);
    });
  });
});

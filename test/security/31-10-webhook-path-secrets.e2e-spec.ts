import { redactUrlIn, safeUrl } from '../../src/platform/net/safe-url';

/**
 * Issue 31.10: webhook URLs carry their secret in the path as often as in the query (Slack
 * `/services/T…/B…/<secret>`, Discord `/api/webhooks/<id>/<token>`, Gitea/Forgejo hook URLs), and
 * the logs kept the whole path. Logged and stored forms keep scheme, host and the first segment;
 * every later segment is `***`. The logs of a real server with such webhooks are checked in
 * 11-9-outbound-url-logging.e2e-spec.ts (PATH-SECRET-*).
 */
describe('security 31.10: webhook secrets in the URL path are not logged', () => {
  it('safeUrl keeps scheme, host and the first path segment only', () => {
    expect(safeUrl('https://hooks.slack.com/services/T0001/B0002/PATH-SECRET-slack')).toBe(
      'https://hooks.slack.com/services/***/***/***',
    );
    expect(safeUrl('https://discord.com/api/webhooks/123/PATH-SECRET-discord?wait=true')).toBe(
      'https://discord.com/api/***/***/***',
    );
    expect(safeUrl('http://u:p@10.0.0.5:8080/hook/PATH-SECRET-x/')).toBe('http://10.0.0.5:8080/hook/***/');
    expect(safeUrl('https://example.com/notify')).toBe('https://example.com/notify');
    expect(safeUrl('https://example.com/')).toBe('https://example.com/');
    expect(safeUrl(new URL('https://example.com/a//b'))).toBe('https://example.com/a//***');
  });

  it('redactUrlIn removes the path secret from library messages, in every form they quote the URL', () => {
    const url = 'https://user:PW@hooks.example.com/services/PATH-SECRET-1?token=Q';
    for (const quoted of [url, 'https://hooks.example.com/services/PATH-SECRET-1', new URL(url).href]) {
      const text = redactUrlIn(`request to ${quoted} failed`, url);
      expect(text).toBe('request to https://hooks.example.com/services/*** failed');
    }
  });
});

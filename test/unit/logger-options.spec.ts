import { redactQueryCredentials } from '../../src/platform/logging/logger-options';

describe('request log URLs', () => {
  it.each([
    ['/api/v1/user?token=abc-def', '/api/v1/user?token=[redacted]'],
    ['/api/v1/user?page=2&access_token=abc&limit=3', '/api/v1/user?page=2&access_token=[redacted]&limit=3'],
    [
      '/api/v2/notifications/inbox/watch?service_session_token=x#frag',
      '/api/v2/notifications/inbox/watch?service_session_token=[redacted]#frag',
    ],
    ['/api/v1/repos?q=token=1', '/api/v1/repos?q=token=1'],
    ['/api/v1/user', '/api/v1/user'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactQueryCredentials(url)).toBe(logged);
  });
});

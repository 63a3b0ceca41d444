import type { Request } from 'express';
import { isFileTransferPath, requestSnapshot } from '../../../src/platform/events/subject-events';

/** The request snapshot subject events carry (what the request checks read). */
function fakeRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  ip = '::ffff:10.0.0.5',
): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    method,
    path,
    protocol: 'https',
    ip,
    get: (name: string) => lower[name.toLowerCase()],
    socket: {},
  } as unknown as Request;
}

describe('requestSnapshot', () => {
  it('keeps address, agent, URL without query, method, declared size and the transfer flag', () => {
    const req = fakeRequest('PUT', '/api/packages/acme/generic/tool/1.0/tool.bin', {
      Host: 'git.example.com',
      'User-Agent': 'curl/8.5.0',
      'Content-Length': '2048',
    });
    expect(requestSnapshot(req)).toEqual({
      remoteAddress: '::ffff:10.0.0.5',
      userAgent: 'curl/8.5.0',
      url: 'https://git.example.com/api/packages/acme/generic/tool/1.0/tool.bin',
      method: 'PUT',
      fileTransfer: true,
      declaredSize: 2048,
    });
  });

  it('prefers OC-Total-Length, ignores Content-Length of a GET, takes an explicit size', () => {
    expect(
      requestSnapshot(fakeRequest('POST', '/x', { 'OC-Total-Length': '99', 'Content-Length': '5' }))
        .declaredSize,
    ).toBe(99);
    expect(requestSnapshot(fakeRequest('GET', '/x', { 'Content-Length': '5' })).declaredSize).toBeNull();
    expect(requestSnapshot(fakeRequest('POST', '/x', {}), 7).declaredSize).toBe(7);
    expect(requestSnapshot(fakeRequest('GET', '/x', {})).userAgent).toBeNull();
  });

  it.each([
    ['/api/packages/acme/npm/left-pad', true],
    ['/acme/app.git/info/refs', true],
    ['/acme/app.git', true],
    ['/attachments/0d4e-uuid', true],
    ['/acme/app/attachments/0d4e-uuid', true],
    ['/acme/app/releases/download/v1.0/app.tgz', true],
    ['/api/v1/repos/acme/app/releases/3/assets', true],
    ['/api/v1/repos/acme/app/issues/4/assets/9', true],
    ['/api/v1/repos/acme/app/issues/comments/4/assets', true],
    ['/api/v1/repos/acme/app', false],
    ['/api/v2/users/me', false],
  ])('%s is a file transfer: %s', (path, expected) => {
    expect(isFileTransferPath(path)).toBe(expected);
  });
});

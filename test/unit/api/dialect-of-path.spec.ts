import { dialectOfPath } from '../../../src/api/dialect';
import { sseErrorFrame } from '../../../src/api/sse/sse-error.renderer';

describe('dialectOfPath (only for failures before a route matched)', () => {
  it.each([
    ['/ocs/v2.php/apps/workflowengine/api/v1/workflows/global', 'ocs'],
    ['/api/v2/users/me', 'coder'],
    ['/api/v2', 'coder'],
    ['/api/experimental/chats', 'coder'],
    ['/api/v1/user', 'gitea'],
    ['/api/packages/alice/npm/left-pad', 'npm'],
    ['/api/packages/alice/npm', 'npm'],
    ['/api/packages/alice/generic/tool/1.0/tool.tgz', 'generic'],
    ['/api/packages/alice/pypi/simple', 'gitea'],
    ['/api/packages/alice/npmx/thing', 'gitea'],
    ['/alice/project.git/info/refs', 'git'],
    ['/alice/project.git', 'git'],
    ['/alice/project/releases/download/v1/a.zip', 'plain'],
    // Case-sensitive, as routing is: these match no route and no dialect.
    ['/API/V2/users/me', 'plain'],
    ['/API/V1/user', 'plain'],
    ['/OCS/v2.php/cloud/user', 'plain'],
    ['/healthz', 'plain'],
  ])('%s → %s', (path, dialect) => {
    expect(dialectOfPath(path)).toBe(dialect);
  });
});

describe('sseErrorFrame', () => {
  it('JSON bodies become one data line', () => {
    expect(sseErrorFrame({ status: 403, body: { message: 'Access revoked.' } })).toBe(
      'event: error\ndata: {"message":"Access revoked."}\n\n',
    );
  });

  it('multi-line text bodies become one data line each (no frame injection)', () => {
    expect(sseErrorFrame({ status: 400, body: 'Validation failed.\nevent: fake\rid: 9\n' })).toBe(
      'event: error\ndata: Validation failed.\ndata: event: fake\ndata: id: 9\n\n',
    );
  });
});

import { createTestApp, type TestApp } from '../helpers/test-app';

type Operation = { security?: Record<string, string[]>[] };
type Document = { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: object } };

/** Issue 51.2 and 46.6: Swagger UI sends the authorized token, keeps it, and contacts no other host. */
describe('API documentation for operators', () => {
  let t: TestApp;
  let document: Document;
  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http().get('/docs-json').expect(200)).body as Document;
  });
  afterAll(() => t.close());

  it('serves a Swagger UI init script without the external validator, keeping the authorization', async () => {
    const init = await t.http().get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toMatch(/"validatorUrl": null/);
    expect(init.text).toMatch(/"persistAuthorization": true/);
    expect(init.text).not.toContain('validator.swagger.io');
    const experimental = await t.http().get('/docs-experimental/swagger-ui-init.js');
    expect(experimental.text).toMatch(/"validatorUrl": null/);
  });

  it('documents optional authentication as anonymous or any scheme, so "Try it out" sends the token', () => {
    const anyScheme = [{}, { 'session-token': [] }, { bearer: [] }, { 'gitea-token': [] }, { basic: [] }];
    for (const [path, method] of [
      ['/api/v1/repos/{owner}/{repo}', 'get'],
      ['/api/v1/repos/{owner}/{repo}/issues', 'get'],
      ['/api/v1/repos/{owner}/{repo}/releases', 'get'],
      ['/api/v1/users/{username}/repos', 'get'],
      ['/api/v1/orgs/{org}', 'get'],
      ['/api/packages/{owner}/npm/{name}', 'get'],
      ['/{owner}/{repo}/info/refs', 'get'],
    ] as const) {
      expect([path, document.paths[path]?.[method]?.security]).toEqual([path, anyScheme]);
    }
    const optional = Object.values(document.paths).flatMap((item) =>
      Object.values(item).filter((op) => op.security?.length && Object.keys(op.security[0]!).length === 0),
    );
    expect(optional.length).toBeGreaterThanOrEqual(36);
    // Routes that need a caller list the schemes only; routes that ignore one stay public.
    expect(document.paths['/api/v1/user']!.get!.security).toEqual(anyScheme.slice(1));
    expect(document.paths['/{owner}/{repo}/git-receive-pack']!.post!.security).toEqual(anyScheme.slice(1));
    expect(document.paths['/healthz']!.get!.security).toEqual([]);
    expect(document.paths['/api/v2/users/login']!.post!.security).toEqual([]);
  });

  it('documents /metrics with its METRICS_TOKEN bearer and keeps the git hook route out', () => {
    expect(document.paths['/metrics']!.get!.security).toEqual([{ 'metrics-token': [] }]);
    expect(document.components.securitySchemes).toMatchObject({
      'metrics-token': { type: 'http', scheme: 'bearer' },
    });
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/api/internal'))).toEqual([]);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/{owner}/{repo}/info/refs',
        '/{owner}/{repo}/git-upload-pack',
        '/{owner}/{repo}/git-receive-pack',
      ]),
    );
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Issue 36.2: `/` serves the landing page the banner names, and the links the API hands out lead
 * somewhere: Gitea error bodies' `url` (api/swagger) to the API docs, the must-change-password page.
 */
describe('landing page and the links the API hands out', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves a landing page with version, health, docs and URL forms', async () => {
    const res = await t.http().get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const { version } = JSON.parse(
      readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    expect(res.text).toContain(`devplane ${version}`);
    for (const link of ['healthz', 'readyz', 'docs', 'docs-experimental'])
      expect(res.text).toContain(`href="${t.config.publicUrl}${link}"`);
    expect(res.text).toContain(`git clone ${t.config.publicUrl}{owner}/{repo}.git`);
    expect(res.text).toContain(`${t.config.publicUrl}api/packages/{owner}/npm/`);
    for (const link of ['/healthz', '/docs', '/docs-experimental'])
      expect((await t.http().get(link)).status).toBeLessThan(400);
  });

  it("Gitea error bodies' url leads to the API docs", async () => {
    const error = await t.http().get('/api/v1/repos/nobody/nothing');
    expect(error.status).toBe(404);
    const url = new URL((error.body as { url: string }).url);
    const redirect = await t.http().get(url.pathname);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe(`${t.config.publicUrl}docs`);
    expect((await t.http().get('/docs')).status).toBeLessThan(400);
  });

  it('the must-change-password link explains the route that changes the password', async () => {
    const page = await t.http().get('/user/change_password');
    expect(page.status).toBe(200);
    expect(page.text).toContain('api/v2/users/me/password');
  });
});

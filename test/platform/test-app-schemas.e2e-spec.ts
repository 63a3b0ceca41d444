import { createTestApp, type TestApp } from '../helpers/test-app';

const embedded = process.env.DATABASE_EMBEDDED === 'true';
const usersNamed = (t: TestApp, name: string): Promise<unknown[]> =>
  t.dataSource.query('SELECT 1 FROM users WHERE lower_name = $1', [name]);

/** The test helper's contract with the single-session embedded database (issue 35). */
describe('test apps and schemas', () => {
  let first: TestApp;
  beforeAll(async () => {
    first = await createTestApp();
  });
  afterAll(async () => {
    await first.close();
  });

  it('opens a second instance on the same schema, which sees the first one’s rows', async () => {
    const user = await first.factories.user({ username: 'shared' });
    const second = await createTestApp({ schema: first.schema });
    try {
      const res = await second.http().get('/api/v1/user').set('Authorization', `token ${user.token}`);
      expect(res.status).toBe(200);
      expect(res.body.login).toBe('shared');
    } finally {
      await second.close();
    }
    // Closing the second instance leaves the first one's schema in place.
    expect((await first.http().get('/api/v1/user').set('Authorization', `token ${user.token}`)).status).toBe(
      200,
    );
  });

  it('refuses an app on another schema on the embedded database; serves both side by side on a server', async () => {
    if (embedded) {
      await expect(createTestApp()).rejects.toThrow(/serves one schema at a time.*\{ schema: '/s);
      // The refusal changed nothing: the open app still serves its own tables.
      expect((await first.http().get('/api/v2/buildinfo')).status).toBe(200);
      expect(await usersNamed(first, 'shared')).toHaveLength(1);
      return;
    }
    const other = await createTestApp();
    try {
      expect(other.schema).not.toBe(first.schema);
      await other.factories.user({ username: 'elsewhere' });
      expect(await usersNamed(first, 'elsewhere')).toHaveLength(0);
      expect(await usersNamed(other, 'elsewhere')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

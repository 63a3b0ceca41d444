import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { appEnv, messagesOf } from '../notifications/helpers';

/** Embedded PGlite shares one schema between test apps: a trigger that breaks inserts runs only on a server. */
const onServer = process.env.DATABASE_EMBEDDED !== 'true';
const itOnServer = onServer ? it : it.skip;

/**
 * Issue 11.8: the e-mail and inbox rows of one custom notification are written in one transaction;
 * when the second write fails, neither row exists.
 */
describe('11.8 custom notification fan-out is atomic', () => {
  let t: TestApp;
  const as = (u: CreatedUser) => ({ 'Service-Session-Token': u.token });
  const send = (u: CreatedUser, title: string) =>
    t
      .http()
      .post('/api/v2/notifications/custom')
      .set(as(u))
      .send({ content: { title, message: `${title} body` } });

  beforeAll(async () => {
    // An SMTP transport that is configured (so the e-mail row is written) but never reached: the dispatcher polls slowly.
    t = await createTestApp({
      env: appEnv({ SMTP_URL: 'smtp://127.0.0.1:9', NOTIFICATIONS_METHOD: 'smtp' }),
    });
  });
  afterAll(() => t.close());

  it('without a failure one request writes an e-mail row and an inbox row', async () => {
    const user = await t.factories.user();
    expect((await send(user, 'both')).status).toBe(204);
    const rows = await messagesOf(t.dataSource, user.user.id);
    expect(rows.map((row) => [row.method, row.template_id]).sort()).toEqual([
      ['inbox', IDS.customNotification],
      ['smtp', IDS.customNotification],
    ]);
  });

  itOnServer('the inbox insert failing → 500 and no e-mail row either', async () => {
    const user = await t.factories.user();
    const schema = `"${t.schema}"`;
    await t.dataSource
      .query(`CREATE FUNCTION ${schema}.refuse_inbox_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'inbox row refused by the test'; END $$`);
    await t.dataSource.query(`CREATE TRIGGER refuse_inbox_row BEFORE INSERT ON ${schema}.notification_messages
      FOR EACH ROW WHEN (NEW.method = 'inbox') EXECUTE FUNCTION ${schema}.refuse_inbox_row()`);
    try {
      const res = await send(user, 'half');
      expect(res.status).toBe(500);
      expect(res.body.message).toBe('Failed to send custom notification');
      expect(await messagesOf(t.dataSource, user.user.id)).toEqual([]);
    } finally {
      await t.dataSource.query(`DROP TRIGGER refuse_inbox_row ON ${schema}.notification_messages`);
      await t.dataSource.query(`DROP FUNCTION ${schema}.refuse_inbox_row()`);
    }
    // The same request goes through once the table accepts it again.
    expect((await send(user, 'half')).status).toBe(204);
    expect((await messagesOf(t.dataSource, user.user.id)).map((row) => row.method).sort()).toEqual([
      'inbox',
      'smtp',
    ]);
  });
});

import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { bearer, check, notifyRule, ocs, WF } from './helpers';

/** The OCS bodies are class-validator DTOs (issue 10.1); the OCS formatter keeps today's texts. */
describe('workflow DTOs', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let ruleId: number;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user();
    ruleId = (await ocs(t, 'post', `${WF}/user`, bearer(alice.token), notifyRule())).body.ocs.data.id;
  });
  afterAll(() => t.close());

  const U = () => bearer(alice.token);
  const message = (res: { body: { ocs: { meta: { message: string } } } }) => res.body.ocs.meta.message;

  it('a body that is not an object names the first parameter (create: class; update: name)', async () => {
    for (const body of [[1, 2], []]) {
      const created = await ocs(t, 'post', `${WF}/user`, U(), body);
      expect([created.status, message(created)]).toEqual([
        400,
        'Parameter "class" is missing or has the wrong type',
      ]);
      const updated = await ocs(t, 'put', `${WF}/user/${ruleId}`, U(), body);
      expect([updated.status, message(updated)]).toEqual([
        400,
        'Parameter "name" is missing or has the wrong type',
      ]);
    }
  });

  it('the first failing parameter in Nextcloud order wins when several are wrong', async () => {
    const res = await ocs(t, 'post', `${WF}/user`, U(), {
      ...notifyRule(),
      events: 'x',
      entity: 5,
      checks: {},
    });
    expect(message(res)).toBe('Parameter "checks" is missing or has the wrong type');
  });

  it('the XML answer carries the same message', async () => {
    const res = await t
      .http()
      .post(`${WF}/user`)
      .set('OCS-APIRequest', 'true')
      .set(U())
      .send({ ...notifyRule(), name: 5 });
    expect(res.status).toBe(400);
    expect(res.text).toContain(
      '<message>Parameter &quot;name&quot; is missing or has the wrong type</message>',
    );
  });

  it('description null is stored as ""; unknown keys and a class on update are ignored', async () => {
    const created = await ocs(t, 'post', `${WF}/user`, U(), {
      ...notifyRule(),
      description: null,
      id: 99,
      valid: true,
    });
    expect(created.status).toBe(200);
    expect(created.body.ocs.data.description).toBe('');
    const updated = await ocs(t, 'put', `${WF}/user/${created.body.ocs.data.id}`, U(), {
      ...notifyRule({ name: 'new' }),
      class: 5,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.ocs.data).toMatchObject({ name: 'new', class: notifyRule().class });
  });

  it('check elements are judged by the service in Nextcloud order; extra keys of a check are dropped', async () => {
    const fileName = check('FileName', 'is', 'a').class;
    const rows: [unknown[], string][] = [
      [[null], 'Invalid check provided'],
      [[{ class: fileName, operator: 'is', value: ['a'] }], 'Invalid check provided'],
      [[{ class: fileName, operator: 5, value: 'a' }], 'The given operator is invalid'],
      [[{ class: 'OCA\\Nope', operator: 5, value: 'a' }], 'Check OCA\\Nope does not exist'],
    ];
    for (const [checks, expected] of rows) {
      const res = await ocs(t, 'post', `${WF}/user`, U(), notifyRule({ checks }));
      expect([res.status, message(res)]).toEqual([400, expected]);
    }
    const ok = await ocs(
      t,
      'post',
      `${WF}/user`,
      U(),
      notifyRule({ checks: [{ ...check('FileName', 'is', 'a.pdf'), extra: 1 }] }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.ocs.data.checks).toEqual([check('FileName', 'is', 'a.pdf')]);
  });

  it('/login/confirm answers 403 [] for every ill-formed body', async () => {
    for (const body of ['[1]', '{"password":5}', '{"password":""}', '{}']) {
      const res = await t
        .http()
        .post('/login/confirm')
        .set(U())
        .set('Content-Type', 'application/json')
        .send(body);
      expect([body, res.status, res.body]).toEqual([body, 403, []]);
    }
  });
});

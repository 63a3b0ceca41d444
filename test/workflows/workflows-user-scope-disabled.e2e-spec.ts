import { EventEmitter2 } from '@nestjs/event-emitter';
import { RuleStore } from '../../src/modules/workflows/engine/rule-store.service';
import { EventBus } from '../../src/platform/events/event-bus.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { bearer, notifyRule, ocs, WF } from './helpers';

/** WORKFLOW_USER_SCOPE_DISABLED (Nextcloud's user_scope_disabled): /user answers 403 "User not logged in". */
describe('workflow user scope disabled', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp({ env: { WORKFLOW_USER_SCOPE_DISABLED: 'true' } });
    admin = await t.factories.admin();
    alice = await t.factories.user();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['get', `${WF}/user`],
    ['get', `${WF}/user/1`],
    ['post', `${WF}/user`],
    ['put', `${WF}/user/1`],
    ['delete', `${WF}/user/1`],
  ] as const)('%s %s → 403 User not logged in', async (method, path) => {
    const res = await ocs(
      t,
      method,
      path,
      bearer(alice.token),
      method === 'post' || method === 'put' ? notifyRule() : undefined,
    );
    expect(res.status).toBe(403);
    expect(res.body.ocs.meta).toEqual({ status: 'failure', statuscode: 403, message: 'User not logged in' });
  });

  it('the global scope still works', async () => {
    expect((await ocs(t, 'get', `${WF}/global`, bearer(admin.token))).status).toBe(200);
  });

  it("existing user rules of an owner still run (scope expansion); the actor's own do not", async () => {
    const notified: { ownerUserId: string }[] = [];
    t.app
      .get(EventEmitter2)
      .on('workflow.notify_owner', (payload: { ownerUserId: string }) => notified.push(payload));
    // Rules stored before the switch was turned on.
    for (const user of [alice, admin]) {
      const rows: { id: number }[] = await t.dataSource.query(
        `INSERT INTO flow_operations (class, name, checks, operation, entity, events) VALUES ($1, 'old', '[]', 'x', $2, $3) RETURNING id`,
        [notifyRule().class, notifyRule().entity, JSON.stringify(notifyRule().events)],
      );
      await t.dataSource.query(
        'INSERT INTO flow_operations_scope (operation_id, type, value) VALUES ($1, 1, $2)',
        [rows[0]!.id, user.user.id],
      );
    }
    t.app.get(RuleStore).invalidate();
    await t.app.get(EventBus).emitAsync('file.created', {
      fileId: '1',
      kind: 'issue_attachment',
      name: 'a.txt',
      size: 1,
      mimeType: null,
      actorUserId: admin.user.id,
      ownerUserIds: [alice.user.id],
      request: null,
    });
    expect(notified.map((n) => n.ownerUserId)).toEqual([alice.user.id]);
  });
});

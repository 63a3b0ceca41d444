import { RuleStore } from '../../src/modules/workflows/engine/rule-store.service';
import { scopeKey } from '../../src/modules/workflows/engine/rule-snapshot';
import { WorkflowAccessControlService } from '../../src/modules/workflows/workflow-access-control.service';
import { createTestApp, type TestApp } from '../helpers/test-app';
import type { CreatedUser } from '../helpers/factories';
import { ACCESS, accessRule, bearer, check, notifyRule, ocs, WF } from './helpers';

/**
 * Two instances on one PostgreSQL: a rule change on one drops the other's rule cache
 * (workflow.rules_changed over LISTEN/NOTIFY). Embedded PGlite has no cross-instance bus.
 */
const embedded = process.env.DATABASE_EMBEDDED === 'true';

(embedded ? describe.skip : describe)('workflow rule cache across instances', () => {
  let first: TestApp;
  let second: TestApp;
  let admin: CreatedUser;
  beforeAll(async () => {
    first = await createTestApp();
    second = await createTestApp({ schema: first.schema });
    admin = await first.factories.admin();
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  async function eventually(probe: () => Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      if (await probe()) return true;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return false;
  }

  it('a rule created on one instance is enforced by the other; its deletion too', async () => {
    const other = second.app.get(WorkflowAccessControlService);
    const file = { name: 'cluster.bin', actorUserId: null, request: null };
    expect(await other.isFileAllowed(file)).toBe(true); // loads the second instance's cache
    const created = await ocs(
      first,
      'post',
      `${WF}/global`,
      bearer(admin.token),
      accessRule({ checks: [check('FileName', 'is', 'cluster.bin')] }),
    );
    expect(created.status).toBe(200);
    expect(await eventually(async () => !(await other.isFileAllowed(file)))).toBe(true);
    await ocs(first, 'delete', `${WF}/global/${created.body.ocs.data.id}`, bearer(admin.token));
    expect(await eventually(() => other.isFileAllowed(file))).toBe(true);
  });

  it("a deleted user's rules leave the other instance's copy; the other scopes stay as they were compiled", async () => {
    const user = await first.factories.user();
    const created = await ocs(first, 'post', `${WF}/user`, bearer(user.token), notifyRule());
    expect(created.status).toBe(200);
    const store = second.app.get(RuleStore);
    const key = scopeKey(1, user.user.id);
    expect(await eventually(async () => (await store.snapshot()).byScope.has(key))).toBe(true);
    const before = await store.snapshot();
    const globalRules = before.rulesOf(scopeKey(0, ''), ACCESS);
    const deleted = await first
      .http()
      .delete(`/api/v1/admin/users/${user.user.name}`)
      .set('Authorization', `token ${admin.token}`);
    expect(deleted.status).toBe(204);
    expect(await eventually(async () => !(await store.snapshot()).byScope.has(key))).toBe(true);
    // Derived from the copy it had (the user's scope removed), not reloaded: the admin scope's compiled
    // rules are the same objects.
    expect((await store.snapshot()).rulesOf(scopeKey(0, ''), ACCESS)).toBe(globalRules);
  });
});

import { WorkflowAccessControlService } from '../../src/modules/workflows/workflow-access-control.service';
import { createTestApp, type TestApp } from '../helpers/test-app';
import type { CreatedUser } from '../helpers/factories';
import { accessRule, bearer, check, ocs, WF } from './helpers';

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
});

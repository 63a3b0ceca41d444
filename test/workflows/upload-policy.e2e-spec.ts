import { ForbiddenError } from '../../src/platform/errors/domain-error';
import { UploadPolicy } from '../../src/platform/uploads/upload-policy';
import { BOOTSTRAP_ADMIN, basic, createTestApp, type TestApp } from '../helpers/test-app';
import { accessRule, ocs, WF } from './helpers';

/** The platform's UploadPolicy port, implemented by the workflows module (issue 10 item 3). */
describe('UploadPolicy port', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('is the workflow access control: a matching admin rule refuses the file, others pass', async () => {
    const policy = t.app.get(UploadPolicy);
    const file = (name: string) => ({ name, actorUserId: null, request: null });
    await expect(policy.assertFileAllowed(file('tool.exe'))).resolves.toBeUndefined();
    const created = await ocs(
      t,
      'post',
      `${WF}/global`,
      { Authorization: basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password) },
      accessRule(),
    );
    expect(created.status).toBe(200);
    await expect(policy.assertFileAllowed(file('tool.exe'))).rejects.toBeInstanceOf(ForbiddenError);
    await expect(policy.assertFileAllowed(file('notes.txt'))).resolves.toBeUndefined();
  });
});

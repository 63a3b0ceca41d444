import { ConflictError, NotFoundError } from '../../../src/platform/errors/domain-error';
import {
  completedBuildEffects,
  reinitOpening,
  type ReinitState,
} from '../../../src/modules/workspaces/build-rules';
import { workspaceStatus } from '../../../src/modules/workspaces/coder-workspace.presenter';
import { PREBUILDS_USER_ID } from '../../../src/modules/workspaces/events';

const WORKSPACE = '11111111-1111-4111-8111-111111111111';
const USER = '22222222-2222-4222-8222-222222222222';

describe('workspaces builds: the workspace status a build job gives', () => {
  it.each([
    ['pending', 'start', 'pending'],
    ['pending', 'stop', 'pending'],
    ['pending', 'delete', 'pending'],
    ['running', 'start', 'starting'],
    ['running', 'stop', 'stopping'],
    ['running', 'delete', 'deleting'],
    ['succeeded', 'start', 'running'],
    ['succeeded', 'stop', 'stopped'],
    ['succeeded', 'delete', 'deleted'],
    ['canceling', 'start', 'canceling'],
    ['canceled', 'stop', 'canceled'],
    ['failed', 'start', 'failed'],
    ['failed', 'delete', 'failed'],
    ['unknown', 'start', 'failed'],
  ])('job %s of a %s build → %s', (jobStatus, transition, expected) => {
    expect(workspaceStatus(jobStatus, transition)).toBe(expected);
  });
});

describe('workspaces builds: what a succeeded build job does to its workspace', () => {
  const build = { transition: 'start', is_claim: false, workspace_id: WORKSPACE, owner_id: USER };

  it('a start or stop build changes nothing beyond its job', () => {
    expect(completedBuildEffects(build)).toEqual({ deleteWorkspace: false, reinit: null });
    expect(completedBuildEffects({ ...build, transition: 'stop' })).toEqual({
      deleteWorkspace: false,
      reinit: null,
    });
  });

  it('a delete build marks the workspace deleted', () => {
    expect(completedBuildEffects({ ...build, transition: 'delete' })).toEqual({
      deleteWorkspace: true,
      reinit: null,
    });
  });

  it("a claim build sends the reinit event naming the workspace's new owner", () => {
    const effects = completedBuildEffects({ ...build, is_claim: true });
    expect(effects.deleteWorkspace).toBe(false);
    expect(effects.reinit).toEqual({ workspace_id: WORKSPACE, user_id: USER, reason: 'prebuild_claimed' });
    // The event is published as JSON in this key order (older readers parse it).
    expect(JSON.stringify(effects.reinit)).toBe(
      `{"workspace_id":"${WORKSPACE}","user_id":"${USER}","reason":"prebuild_claimed"}`,
    );
  });
});

describe('workspaces builds: the reinit stream opening for a prebuilt workspace', () => {
  const claimed = (claim_status: string | null): ReinitState => ({
    owner_id: USER,
    first_initiator: PREBUILDS_USER_ID,
    claim_status,
  });

  it('an unknown (or deleted) workspace is 404', () => {
    expect(() => reinitOpening(WORKSPACE, undefined)).toThrow(NotFoundError);
  });

  it('an unclaimed prebuilt workspace waits', () => {
    expect(
      reinitOpening(WORKSPACE, {
        owner_id: PREBUILDS_USER_ID,
        first_initiator: PREBUILDS_USER_ID,
        claim_status: null,
      }),
    ).toEqual({ kind: 'wait' });
  });

  it('a regular workspace (its first build was not the prebuilds user) is 409 NOT_PREBUILT', () => {
    const opening = (): unknown =>
      reinitOpening(WORKSPACE, { owner_id: USER, first_initiator: USER, claim_status: null });
    expect(opening).toThrow(ConflictError);
    expect(opening).toThrow(expect.objectContaining({ code: 'NOT_PREBUILT' }) as Error);
  });

  it('a claimed workspace whose claim build succeeded sends one event and ends', () => {
    expect(reinitOpening(WORKSPACE, claimed('succeeded'))).toEqual({
      kind: 'send-and-end',
      event: { workspace_id: WORKSPACE, user_id: USER, reason: 'prebuild_claimed' },
    });
  });

  it.each(['failed', 'canceled'])('a claim build that %s is 409 CLAIM_FAILED', (status) => {
    expect(() => reinitOpening(WORKSPACE, claimed(status))).toThrow(
      expect.objectContaining({ code: 'CLAIM_FAILED' }) as Error,
    );
  });

  it.each(['pending', 'running'])('a claim build still %s waits for its completion', (status) => {
    expect(reinitOpening(WORKSPACE, claimed(status))).toEqual({ kind: 'wait' });
  });
});

import { ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { PREBUILDS_USER_ID } from './events';

/**
 * The pure rules of builds and prebuilds: what a succeeded build job does to its workspace, what the
 * reinit stream does when it opens, and what the prebuild reconciler creates and retires. The services
 * read the rows and apply the outcome; these functions decide.
 */

/** The reinitialization event, as the reinit stream sends it. */
export interface ReinitEvent {
  workspace_id: string;
  user_id: string;
  reason: string;
}

/** What a succeeded build job acts on. */
export interface CompletedBuild {
  transition: string;
  is_claim: boolean;
  workspace_id: string;
  owner_id: string;
}

/**
 * What a succeeded build job does to its workspace (the build's own state is its job's status): a
 * delete build marks the workspace deleted; a claim build tells the workspace's agent about its new
 * owner (the reinit event, published after the commit).
 */
export function completedBuildEffects(build: CompletedBuild): {
  deleteWorkspace: boolean;
  reinit: ReinitEvent | null;
} {
  return {
    deleteWorkspace: build.transition === 'delete',
    reinit: build.is_claim
      ? { workspace_id: build.workspace_id, user_id: build.owner_id, reason: 'prebuild_claimed' }
      : null,
  };
}

/** What the reinit stream does when it opens (spec 2, the four rows). */
export type ReinitOpening = { kind: 'wait' } | { kind: 'send-and-end'; event: ReinitEvent };

/** A workspace as the reinit stream's opening reads it. */
export interface ReinitState {
  owner_id: string;
  /** The initiator of the workspace's first build (the prebuilds user for a prebuilt workspace). */
  first_initiator: string | null;
  /** The job status of the workspace's latest claim build (null: never claimed). */
  claim_status: string | null;
}

/**
 * The reinit stream's opening (spec 2, States and transitions): unknown workspace → 404; unclaimed →
 * wait; a regular workspace → 409; claimed and the claim build succeeded → one event; the claim build
 * failed or canceled → 409; claimed with the claim build still pending or running → wait for the event
 * at its completion.
 */
export function reinitOpening(workspaceId: string, state: ReinitState | undefined): ReinitOpening {
  if (!state) throw new NotFoundError('Workspace not found.');
  if (state.owner_id === PREBUILDS_USER_ID) return { kind: 'wait' };
  if (state.first_initiator !== PREBUILDS_USER_ID)
    throw new ConflictError('Workspace is not a prebuilt workspace waiting to be claimed.', {
      code: 'NOT_PREBUILT',
    });
  if (state.claim_status === 'succeeded')
    return {
      kind: 'send-and-end',
      event: { workspace_id: workspaceId, user_id: state.owner_id, reason: 'prebuild_claimed' },
    };
  if (state.claim_status === 'failed' || state.claim_status === 'canceled')
    throw new ConflictError('Claim build failed permanently.', { code: 'CLAIM_FAILED' });
  return { kind: 'wait' };
}

/** A preset of a template's active version that wants prebuilt workspaces. */
export interface WantedPrebuilds {
  preset: string;
  templateId: string;
  versionId: string;
  instances: number;
}

/** A workspace of the prebuilds user with its latest build (oldest workspace first). */
export interface PrebuiltWorkspace {
  id: string;
  preset_id: string | null;
  transition: string;
  /** The latest build's job status. */
  status: string;
}

/** What one reconciliation pass does: workspaces to delete, and how many to create per wanted preset. */
export interface PrebuildPlan {
  retire: string[];
  create: (WantedPrebuilds & { count: number })[];
}

/**
 * The reconciler's decision. A prebuilt workspace counts for its preset while its latest build is a
 * start that has not failed (pending, running or succeeded) and its preset still wants prebuilds; the
 * oldest count first and the surplus beyond the desired number is retired. Any other workspace is
 * retired once its build is done (not pending or running); a workspace being deleted is left alone
 * unless its delete build failed (the deletion is tried again). Each preset gets as many new workspaces
 * as it lacks.
 */
export function planPrebuilds(wanted: WantedPrebuilds[], prebuilt: PrebuiltWorkspace[]): PrebuildPlan {
  const desired = new Set(wanted.map((entry) => entry.preset));
  const live = new Map<string, string[]>();
  const retire: string[] = [];
  for (const workspace of prebuilt) {
    const inProgress = workspace.status === 'pending' || workspace.status === 'running';
    if (workspace.transition === 'delete') {
      if (workspace.status === 'failed') retire.push(workspace.id); // try the deletion again
      continue;
    }
    const keep = workspace.preset_id !== null && desired.has(workspace.preset_id);
    if (keep && workspace.transition === 'start' && workspace.status !== 'failed') {
      const list = live.get(workspace.preset_id!) ?? [];
      list.push(workspace.id);
      live.set(workspace.preset_id!, list);
    } else if (!inProgress) retire.push(workspace.id);
  }
  const create: PrebuildPlan['create'] = [];
  for (const entry of wanted) {
    const current = live.get(entry.preset) ?? [];
    if (current.length > entry.instances) retire.push(...current.slice(entry.instances));
    create.push({ ...entry, count: Math.max(0, entry.instances - current.length) });
  }
  return { retire, create };
}

import {
  planPrebuilds,
  type PrebuiltWorkspace,
  type WantedPrebuilds,
} from '../../../src/modules/workspaces/build-rules';

const want = (preset: string, instances: number): WantedPrebuilds => ({
  preset,
  templateId: `template-of-${preset}`,
  versionId: `version-of-${preset}`,
  instances,
});
const prebuilt = (
  id: string,
  preset_id: string | null,
  transition: string,
  status: string,
): PrebuiltWorkspace => ({ id, preset_id, transition, status });
const counts = (plan: ReturnType<typeof planPrebuilds>): Record<string, number> =>
  Object.fromEntries(plan.create.map((entry) => [entry.preset, entry.count]));

describe('workspaces prebuilds: the reconciler plan', () => {
  it('creates every desired instance when none exists, and retires nothing', () => {
    const plan = planPrebuilds([want('a', 2), want('b', 1)], []);
    expect(counts(plan)).toEqual({ a: 2, b: 1 });
    expect(plan.retire).toEqual([]);
    expect(plan.create[0]).toMatchObject({ templateId: 'template-of-a', versionId: 'version-of-a' });
  });

  it('counts start builds that are pending, running or succeeded; a failed one is retired and replaced', () => {
    const plan = planPrebuilds(
      [want('a', 3)],
      [
        prebuilt('w1', 'a', 'start', 'succeeded'),
        prebuilt('w2', 'a', 'start', 'running'),
        prebuilt('w3', 'a', 'start', 'failed'),
      ],
    );
    expect(counts(plan)).toEqual({ a: 1 });
    expect(plan.retire).toEqual(['w3']);
  });

  it('retires the newest surplus beyond the desired count (the oldest are kept)', () => {
    const plan = planPrebuilds(
      [want('a', 1)],
      [prebuilt('old', 'a', 'start', 'succeeded'), prebuilt('new', 'a', 'start', 'pending')],
    );
    expect(counts(plan)).toEqual({ a: 0 });
    expect(plan.retire).toEqual(['new']);
  });

  it('retires a workspace of a preset no longer wanted, or without a preset, once its build is done', () => {
    const plan = planPrebuilds(
      [want('a', 1)],
      [
        prebuilt('a1', 'a', 'start', 'succeeded'),
        prebuilt('gone-done', 'old-preset', 'start', 'succeeded'),
        prebuilt('gone-busy', 'old-preset', 'start', 'running'),
        prebuilt('no-preset', null, 'start', 'succeeded'),
        prebuilt('gone-pending', 'old-preset', 'start', 'pending'),
      ],
    );
    expect(plan.retire).toEqual(['gone-done', 'no-preset']);
    expect(counts(plan)).toEqual({ a: 0 });
  });

  it('retires a stopped prebuilt workspace once the stop is done (it does not count)', () => {
    const plan = planPrebuilds(
      [want('a', 1)],
      [prebuilt('stopped', 'a', 'stop', 'succeeded'), prebuilt('stopping', 'a', 'stop', 'running')],
    );
    expect(plan.retire).toEqual(['stopped']);
    expect(counts(plan)).toEqual({ a: 1 });
  });

  it('leaves a workspace being deleted alone, and tries a failed deletion again', () => {
    const plan = planPrebuilds(
      [want('a', 1)],
      [
        prebuilt('deleting', 'a', 'delete', 'running'),
        prebuilt('deleted', 'a', 'delete', 'succeeded'),
        prebuilt('delete-failed', 'a', 'delete', 'failed'),
      ],
    );
    expect(plan.retire).toEqual(['delete-failed']);
    // none of them counts for the preset
    expect(counts(plan)).toEqual({ a: 1 });
  });

  it('with no preset wanting prebuilds, every finished prebuilt workspace is retired', () => {
    const plan = planPrebuilds(
      [],
      [prebuilt('w1', 'a', 'start', 'succeeded'), prebuilt('w2', 'a', 'start', 'pending')],
    );
    expect(plan).toEqual({ retire: ['w1'], create: [] });
  });
});

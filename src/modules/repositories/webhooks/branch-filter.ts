import { RE2JS } from 're2js';
import { giteaGlobSource } from '../branches/gitea-glob';

/**
 * A hook's `branch_filter` (Gitea: gobwas/glob without separators, so `*` also crosses `/`; `{a,b}`,
 * `[...]`, `?`): compiled through the project's Gitea glob (`branches/gitea-glob.ts`) to RE2. `''` and
 * `*` take every branch. Null for a malformed pattern (422 `[BranchFilter]: GlobPattern`).
 */
export function compileBranchFilter(filter: string): ((branch: string) => boolean) | null {
  if (filter === '' || filter === '*') return () => true;
  const source = giteaGlobSource(filter, '');
  if (source === null) return null;
  try {
    const regex = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL);
    return (branch) => regex.matches(branch);
  } catch {
    return null;
  }
}

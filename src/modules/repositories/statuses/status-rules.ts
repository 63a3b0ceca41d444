import { RE2JS } from 're2js';
import { giteaGlobSource } from '../branches/gitea-glob';
import type { CommitStatus, CommitStatusState } from './commit-status.entity';

/** Gitea's state priorities: the worst state wins a combination (error < failure < warning < pending < success). */
const PRIORITY: Record<CommitStatusState, number> = {
  error: 0,
  failure: 1,
  warning: 2,
  pending: 3,
  success: 4,
};

export function worstState(states: CommitStatusState[]): CommitStatusState | '' {
  let worst: CommitStatusState | '' = '';
  for (const state of states) if (worst === '' || PRIORITY[state] <= PRIORITY[worst]) worst = state;
  return worst;
}

/** The newest status per context (statuses newest first). */
export function latestPerContext(statuses: CommitStatus[]): CommitStatus[] {
  const seen = new Set<string>();
  return statuses.filter((status) => !seen.has(status.context) && seen.add(status.context));
}

/**
 * Gitea's MergeRequiredContextsCommitStatus: no status at all is pending; no required context means
 * every context counts; else each pattern (Gitea's glob without separators, `ci/*` matches `ci/a/b`)
 * takes the state of the first matching context, pending when none matches; the worst state wins.
 */
export function requiredContextsState(latest: CommitStatus[], patterns: string[]): CommitStatusState {
  if (latest.length === 0) return 'pending';
  if (patterns.length === 0) return worstState(latest.map((status) => status.state)) || 'pending';
  const states: CommitStatusState[] = [];
  for (const pattern of patterns) {
    const source = giteaGlobSource(pattern, '\u0000');
    let matches: (context: string) => boolean = (context) => context === pattern;
    if (source !== null) {
      try {
        const regex = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL);
        matches = (context) => regex.matches(context);
      } catch {
        // A pattern RE2 refuses matches only itself.
      }
    }
    states.push(latest.find((status) => matches(status.context))?.state ?? 'pending');
  }
  return worstState(states) || 'pending';
}

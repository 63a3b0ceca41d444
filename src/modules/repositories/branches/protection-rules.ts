import type { BranchProtection } from './branch-protection.entity';
import { type BranchMatcher, compileRuleName, isGlobRuleName } from './gitea-glob';

/** A repository's rules compiled once, in effective order (Gitea's GetFirstMatched). */
export class ProtectionRuleSet {
  private readonly compiled: { rule: BranchProtection; matches: BranchMatcher }[];

  constructor(rules: BranchProtection[]) {
    this.compiled = sortRules(rules).map((rule) => ({ rule, matches: compileRuleName(rule.ruleName) }));
  }

  get rules(): BranchProtection[] {
    return this.compiled.map((entry) => entry.rule);
  }

  /** The rule that governs `branch`: the first match by priority. */
  effective(branch: string): BranchProtection | null {
    return this.compiled.find((entry) => entry.matches(branch))?.rule ?? null;
  }

  /** Whether any rule matches (protected from deletion). */
  protects(branch: string): boolean {
    return this.effective(branch) !== null;
  }
}

/** Priority ascending, plain names before globs, then oldest first (then id, for a stable order). */
export function sortRules(rules: BranchProtection[]): BranchProtection[] {
  return [...rules].sort((a, b) => {
    const byPriority = Number(a.priority) - Number(b.priority);
    if (byPriority !== 0) return byPriority;
    const byKind = Number(isGlobRuleName(a.ruleName)) - Number(isGlobRuleName(b.ruleName));
    if (byKind !== 0) return byKind;
    const byAge = a.createdAt.getTime() - b.createdAt.getTime();
    return byAge !== 0 ? byAge : Number(a.id) - Number(b.id);
  });
}

/** Who is asking: a user with their repository write access and their team ids in the owning organization. */
export interface RuleSubject {
  userId: string;
  canWrite: boolean;
  teamIds: ReadonlySet<string>;
}

function listed(userIds: string[], teamIds: string[], subject: RuleSubject): boolean {
  return userIds.includes(subject.userId) || teamIds.some((id) => subject.teamIds.has(id));
}

/** Gitea's CanUserPush: push disabled ⇒ nobody; whitelist off ⇒ code writers; on ⇒ listed users and teams. */
export function canPush(rule: BranchProtection, subject: RuleSubject): boolean {
  if (!rule.enablePush) return false;
  if (!rule.enablePushWhitelist) return subject.canWrite;
  return listed(rule.pushWhitelistUserIds, rule.pushWhitelistTeamIds, subject);
}

/** Force pushes also need `enable_force_push` and, with the allowlist on, a place on it. */
export function canForcePush(rule: BranchProtection, subject: RuleSubject): boolean {
  if (!rule.enableForcePush || !canPush(rule, subject)) return false;
  if (!rule.enableForcePushAllowlist) return true;
  return listed(rule.forcePushAllowlistUserIds, rule.forcePushAllowlistTeamIds, subject);
}

/** Merge whitelist off ⇒ code writers; on ⇒ listed users and teams. */
export function canMerge(rule: BranchProtection, subject: RuleSubject): boolean {
  if (!rule.enableMergeWhitelist) return subject.canWrite;
  return listed(rule.mergeWhitelistUserIds, rule.mergeWhitelistTeamIds, subject);
}

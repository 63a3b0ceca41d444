import { Injectable, Optional } from '@nestjs/common';
import { type PullRequestFacts, PullRequests } from '../../platform/ports/pull-requests';
import { ChatCostsRepository } from './repositories/chat-costs.repository';
import { ChatPullRequestsRepository, type InsightLink } from './repositories/chat-pull-requests.repository';

const DAY_MS = 86_400_000;
const RECENT_LIMIT = 20;

type LinkRow = InsightLink;

/** One linked pull request with its live facts and its share of the chats' cost. */
interface InsightPull {
  link: LinkRow;
  facts: PullRequestFacts | undefined;
  state: 'open' | 'closed' | 'merged';
  costMicros: bigint;
}

/** `a / b` for rates: 0 when the denominator is 0. */
export function rate(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

/** Whole micro-dollars per merged pull request (rounded half up), 0 without merges. */
export function perMerged(cost: bigint, merged: number): number {
  if (merged === 0) return 0;
  return Number((cost * 2n + BigInt(merged)) / (2n * BigInt(merged)));
}

function summarize(pulls: InsightPull[]) {
  const merged = pulls.filter((pull) => pull.state === 'merged').length;
  const cost = pulls.reduce((sum, pull) => sum + pull.costMicros, 0n);
  return {
    created: pulls.length,
    merged,
    mergeRate: rate(merged, pulls.length),
    additions: pulls.reduce((sum, pull) => sum + (pull.facts?.additions ?? 0), 0),
    deletions: pulls.reduce((sum, pull) => sum + (pull.facts?.deletions ?? 0), 0),
    cost,
    costPerMerged: perMerged(cost, merged),
  };
}

const dayOf = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * PR insights (issue 19.7): the pull requests chats opened in a period, with their live state from
 * the repositories module and the cost of the chats that opened them. A chat tree's cost (root and
 * subagents, every assistant message) is divided evenly among the pull requests the tree opened.
 */
@Injectable()
export class ChatInsightsService {
  constructor(
    private readonly links: ChatPullRequestsRepository,
    private readonly costs: ChatCostsRepository,
    @Optional() private readonly pullRequests?: PullRequests,
  ) {}

  async pullRequestInsights(start: Date, end: Date) {
    const length = end.getTime() - start.getTime();
    const previousStart = new Date(start.getTime() - length);
    const links = await this.links.openedBetween(previousStart, end);
    const roots = [...new Set(links.map((link) => link.rootChatId))];
    const treeCost = new Map<string, { cost: bigint; pulls: number }>();
    if (roots.length > 0) {
      const rows = await this.costs.treeCostsAndPulls(roots);
      for (const row of rows) treeCost.set(row.root, { cost: BigInt(row.cost), pulls: row.pulls });
    }
    const facts = (await this.pullRequests?.describe(links.map((link) => link.issueId))) ?? new Map();
    const pulls: InsightPull[] = links.map((link) => {
      const tree = treeCost.get(link.rootChatId);
      const found = facts.get(link.issueId);
      return {
        link,
        facts: found,
        // A pull request whose repository is gone counts as closed.
        state: found?.state ?? 'closed',
        costMicros: tree && tree.pulls > 0 ? tree.cost / BigInt(tree.pulls) : 0n,
      };
    });
    const current = pulls.filter((pull) => new Date(pull.link.createdAt) >= start);
    const previous = pulls.filter((pull) => new Date(pull.link.createdAt) < start);
    const now = summarize(current);
    const before = summarize(previous);

    const series = new Map<string, { prs_created: number; prs_merged: number; prs_closed: number }>();
    for (let day = Date.parse(dayOf(start)); day < end.getTime(); day += DAY_MS)
      series.set(dayOf(new Date(day)), { prs_created: 0, prs_merged: 0, prs_closed: 0 });
    const bump = (date: Date | null | undefined, key: 'prs_created' | 'prs_merged' | 'prs_closed') => {
      if (!date || date < start || date >= end) return;
      const bucket = series.get(dayOf(date));
      if (bucket) bucket[key]++;
    };
    for (const pull of current) {
      bump(new Date(pull.link.createdAt), 'prs_created');
      if (pull.state === 'merged') bump(pull.facts?.mergedAt, 'prs_merged');
      if (pull.state === 'closed') bump(pull.facts?.closedAt, 'prs_closed');
    }

    const models = new Map<string, InsightPull[]>();
    for (const pull of current) {
      const key = pull.link.modelConfigId ?? '';
      const group = models.get(key);
      if (group) group.push(pull);
      else models.set(key, [pull]);
    }
    const byModel = [...models.values()]
      .map((group) => {
        const sums = summarize(group);
        const link = group[0]!.link;
        return {
          model_config_id: link.modelConfigId,
          display_name: link.modelDisplayName ?? '',
          provider: link.modelProvider ?? '',
          total_prs: sums.created,
          merged_prs: sums.merged,
          merge_rate: sums.mergeRate,
          total_additions: sums.additions,
          total_deletions: sums.deletions,
          total_cost_micros: Number(sums.cost),
          cost_per_merged_pr_micros: sums.costPerMerged,
        };
      })
      .sort((a, b) => b.total_prs - a.total_prs || a.display_name.localeCompare(b.display_name));

    return {
      start_date: start.toISOString(),
      end_date: end.toISOString(),
      summary: {
        total_prs_created: now.created,
        total_prs_merged: now.merged,
        merge_rate: now.mergeRate,
        total_additions: now.additions,
        total_deletions: now.deletions,
        total_cost_micros: Number(now.cost),
        cost_per_merged_pr_micros: now.costPerMerged,
        // devplane has no pull request reviews: nothing is approved.
        approval_rate: 0,
        prev_total_prs_created: before.created,
        prev_total_prs_merged: before.merged,
        prev_merge_rate: before.mergeRate,
        prev_cost_per_merged_pr_micros: before.costPerMerged,
      },
      time_series: [...series.entries()].map(([date, counts]) => ({
        date: `${date}T00:00:00Z`,
        ...counts,
      })),
      by_model: byModel,
      recent_prs: current.slice(0, RECENT_LIMIT).map((pull) => ({
        chat_id: pull.link.chatId,
        pr_title: pull.facts?.title ?? pull.link.title,
        pr_url: pull.facts?.htmlUrl ?? pull.link.htmlUrl,
        pr_number: pull.link.number,
        state: pull.state,
        draft: pull.facts?.draft ?? false,
        additions: pull.facts?.additions ?? 0,
        deletions: pull.facts?.deletions ?? 0,
        changed_files: pull.facts?.changedFiles ?? 0,
        commits: pull.facts?.commits ?? 0,
        approved: false,
        changes_requested: false,
        reviewer_count: 0,
        author_login: pull.facts?.authorLogin ?? undefined,
        author_avatar_url: pull.facts?.authorAvatarUrl ?? undefined,
        base_branch: pull.facts?.baseBranch ?? pull.link.baseBranch,
        model_display_name: pull.link.modelDisplayName ?? '',
        cost_micros: Number(pull.costMicros),
        created_at: new Date(pull.link.createdAt).toISOString(),
      })),
    };
  }
}

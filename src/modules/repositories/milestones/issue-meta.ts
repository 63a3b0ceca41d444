import { Injectable } from '@nestjs/common';
import { repoLinks } from '../contents/gitea-contents.presenter';
import type { Repository } from '../entities/repository.entity';
import type { User } from '../../identity/entities/user.entity';
import type { Issue } from '../issues/issue.entity';
import { type GiteaLabelDto, presentGiteaLabel } from '../labels/gitea-label.presenter';
import { LabelsService } from '../labels/labels.service';
import { InvalidError } from '../../../platform/errors/domain-error';
import { IssuesService } from '../issues/issues.service';
import { type AccessMode, atLeast } from '../repository-permissions.service';
import { type GiteaMilestoneDto, presentGiteaMilestone } from './gitea-milestone.presenter';
import { MilestonesService } from './milestones.service';

/** What the Issue and PullRequest JSON carry besides the issue row. */
export interface IssueMeta {
  labels: GiteaLabelDto[];
  milestone: GiteaMilestoneDto | null;
}

export const NO_META: IssueMeta = { labels: [], milestone: null };

/** `labels` and `milestone` of Gitea's issue and pull create/edit options. */
export interface IssueMetaInput {
  labels?: number[];
  milestone?: number;
}

/** What `prepare` checked: label ids, and the milestone (null: remove it) when given. */
export interface PreparedMeta {
  labelIds?: string[];
  milestoneId?: string | null;
}

/**
 * Labels and milestones of a page of issues or pulls, in a fixed number of queries whatever the page's
 * size: the labels (one), the milestones named (one) and their open/closed counts (one grouped query).
 */
@Injectable()
export class IssueMetaLoader {
  constructor(
    private readonly labels: LabelsService,
    private readonly milestones: MilestonesService,
    private readonly issues: IssuesService,
  ) {}

  /**
   * Checks the labels and milestone of a create or edit before anything is written (unknown ones are
   * 422). As Gitea, only writers set them: for others they are ignored (an empty result).
   */
  async prepare(repo: Repository, mode: AccessMode, input: IssueMetaInput): Promise<PreparedMeta> {
    if (!atLeast(mode, 'write')) return {};
    const prepared: PreparedMeta = {};
    if (input.milestone !== undefined)
      prepared.milestoneId =
        input.milestone === 0 ? null : (await this.milestones.requireForIssue(repo, input.milestone)).id;
    if (input.labels !== undefined) {
      const { ids, missing } = await this.labels.resolveRefs(repo, input.labels.map(String));
      if (missing.length)
        throw new InvalidError(`label does not exist [id: ${missing[0]}]`, { code: 'LABEL_NOT_FOUND' });
      prepared.labelIds = ids;
    }
    return prepared;
  }

  /**
   * The `labels` and `milestones` filters of an issue or pull list (comma-separated, or repeated, names
   * or ids): every label must be carried; any of the milestones. Unknown milestones are dropped (Gitea);
   * an unknown label, or milestones none of which exists, match nothing (null).
   */
  async listFilter(
    repo: Repository,
    labels: string | string[] | undefined,
    milestones: string | string[] | undefined,
  ): Promise<{ labelIds?: string[]; milestoneIds?: string[] } | null> {
    const split = (value: string | string[] | undefined) =>
      [value ?? []]
        .flat()
        .flatMap((part) => part.split(','))
        .map((part) => part.trim())
        .filter(Boolean);
    const labelRefs = split(labels);
    const milestoneRefs = split(milestones);
    const filter: { labelIds?: string[]; milestoneIds?: string[] } = {};
    if (labelRefs.length) {
      const { ids, missing } = await this.labels.resolveRefs(repo, labelRefs);
      if (missing.length) return null;
      filter.labelIds = ids;
    }
    if (milestoneRefs.length) {
      filter.milestoneIds = await this.milestones.resolve(repo, milestoneRefs);
      if (filter.milestoneIds.length === 0) return null;
    }
    return filter;
  }

  /** Writes what `prepare` checked onto the issue (labels replaced). */
  async apply(repo: Repository, issue: Issue, prepared: PreparedMeta): Promise<void> {
    if (prepared.milestoneId !== undefined) await this.issues.setMilestone(issue, prepared.milestoneId);
    if (prepared.labelIds !== undefined)
      await this.labels.setOnIssue(repo, issue.id, prepared.labelIds, true);
  }

  async ofIssues(
    repo: Repository,
    owner: User,
    publicUrl: string,
    issues: Issue[],
  ): Promise<Map<string, IssueMeta>> {
    const metas = new Map<string, IssueMeta>();
    if (issues.length === 0) return metas;
    const api = repoLinks(publicUrl, owner.name, repo.name).api;
    const milestoneIds = [
      ...new Set(issues.map((issue) => issue.milestoneId).filter((id): id is string => !!id)),
    ];
    const [labels, milestones, counts] = await Promise.all([
      this.labels.ofIssues(issues.map((issue) => issue.id)),
      this.milestones.byIds(milestoneIds),
      this.milestones.counts(milestoneIds),
    ]);
    const presented = new Map(
      milestones.map((milestone) => [
        milestone.id,
        presentGiteaMilestone(milestone, counts.get(milestone.id)),
      ]),
    );
    for (const issue of issues)
      metas.set(issue.id, {
        labels: (labels.get(issue.id) ?? []).map((label) => presentGiteaLabel(label, api)),
        milestone: (issue.milestoneId && presented.get(issue.milestoneId)) || null,
      });
    return metas;
  }

  async ofIssue(repo: Repository, owner: User, publicUrl: string, issue: Issue): Promise<IssueMeta> {
    return (await this.ofIssues(repo, owner, publicUrl, [issue])).get(issue.id) ?? NO_META;
  }
}

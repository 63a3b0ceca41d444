import { Injectable } from '@nestjs/common';
import type { GiteaAssetDto } from './gitea-issue.presenter';

/** Where attachments plug into issue, comment and release JSON: a lister each, registered by the attachments code. */
export interface AssetLister {
  ofIssue(issueId: string): Promise<GiteaAssetDto[]>;
  /** The assets of a page of issues (one query), by issue id. */
  ofIssues(issueIds: string[]): Promise<Map<string, GiteaAssetDto[]>>;
  ofComment(commentId: string): Promise<GiteaAssetDto[]>;
  ofRelease(releaseId: string): Promise<GiteaAssetDto[]>;
}

/** The `assets` of issues, comments and releases (empty until attachments register a lister). */
@Injectable()
export class IssueAssets {
  private lister: AssetLister | null = null;

  use(lister: AssetLister | null): void {
    this.lister = lister;
  }

  async ofIssue(issue: { id: string }): Promise<GiteaAssetDto[]> {
    return this.lister ? this.lister.ofIssue(issue.id) : [];
  }

  /** The assets of a page of issues, by issue id (one query, not one per issue). */
  async ofIssues(issues: { id: string }[]): Promise<Map<string, GiteaAssetDto[]>> {
    if (!this.lister || issues.length === 0) return new Map();
    return this.lister.ofIssues(issues.map((issue) => issue.id));
  }

  async ofComment(comment: { id: string }): Promise<GiteaAssetDto[]> {
    return this.lister ? this.lister.ofComment(comment.id) : [];
  }

  async ofRelease(release: { id: string }): Promise<GiteaAssetDto[]> {
    return this.lister ? this.lister.ofRelease(release.id) : [];
  }
}

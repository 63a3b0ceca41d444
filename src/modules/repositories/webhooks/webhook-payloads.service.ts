import { Injectable } from '@nestjs/common';
import type { User } from '../../identity/entities/user.entity';
import { presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import { UsersService } from '../../identity/users.service';
import { isZeroId } from '../branches/branch-git';
import { CommitsGit, type CommitRecord } from '../commits/commits-git';
import { ContentsService } from '../contents/contents.service';
import type { Repository } from '../entities/repository.entity';
import { GitStorage } from '../git/git-storage.service';
import {
  ghostUser,
  presentGiteaComment,
  presentGiteaIssue,
  presentGiteaPull,
  type PresentContext,
} from '../issues/gitea-issue.presenter';
import { IssueAssets } from '../issues/issue-assets';
import { IssuesService } from '../issues/issues.service';
import { PullsService } from '../issues/pulls.service';
import { presentGiteaRepository } from '../presenters/gitea-repository.presenter';
import { presentGiteaRelease } from '../releases/gitea-release.presenter';
import { ReleasesService } from '../releases/releases.service';
import { RepositoriesService } from '../repositories.service';

/** Gitea's `webhook.FEED_MAX_COMMIT_NUM` default: commits listed in a push payload (`total_commits` counts all). */
export const PUSH_PAYLOAD_MAX_COMMITS = 5;

/**
 * Gitea's webhook payloads (modules/structs/hook.go: PushPayload, CreatePayload, DeletePayload,
 * IssuePayload, PullRequestPayload, IssueCommentPayload, ReleasePayload), built from stored state when
 * the event reaches the webhook listener. The repository is shown with owner permissions and users
 * as an anonymous caller sees them (no private e-mail), as Gitea's notifier does for most events.
 */
@Injectable()
export class WebhookPayloads {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly users: UsersService,
    private readonly contents: ContentsService,
    private readonly storage: GitStorage,
    private readonly issues: IssuesService,
    private readonly pulls: PullsService,
    private readonly releases: ReleasesService,
    private readonly assets: IssueAssets,
  ) {}

  get publicUrl(): string {
    return this.repositories.publicUrl;
  }

  repository(repo: Repository) {
    return presentGiteaRepository(repo, repo.owner, undefined, 'owner', this.publicUrl);
  }

  async user(id: string | null) {
    const user: User = (id ? await this.users.findById(id) : null) ?? ghostUser();
    return presentGiteaUser(user, undefined, this.publicUrl);
  }

  private context(repo: Repository): PresentContext {
    return { repo, owner: repo.owner, viewer: undefined, publicUrl: this.publicUrl };
  }

  private htmlUrl(repo: Repository): string {
    return `${this.publicUrl}${encodeURIComponent(repo.owner.name)}/${encodeURIComponent(repo.name)}`;
  }

  private payloadCommit(
    repo: Repository,
    commit: CommitRecord,
    files?: { filename: string; status: string }[],
  ) {
    const user = (name: string, email: string) => ({ name, email, username: '' });
    return {
      id: commit.sha,
      message: commit.message,
      url: `${this.htmlUrl(repo)}/commit/${commit.sha}`,
      author: user(commit.authorName, commit.authorEmail),
      committer: user(commit.committerName, commit.committerEmail),
      verification: null,
      timestamp: commit.committerDate,
      added: (files ?? []).filter((f) => f.status === 'added').map((f) => f.filename),
      removed: (files ?? []).filter((f) => f.status === 'removed').map((f) => f.filename),
      modified: (files ?? [])
        .filter((f) => f.status !== 'added' && f.status !== 'removed')
        .map((f) => f.filename),
    };
  }

  /** Gitea's PushPayload for one ref move: the newest commits (at most five) and their total. */
  async push(
    repo: Repository,
    input: { ref: string; before: string; after: string; pusherId: string | null },
  ) {
    const gitDir = this.contents.gitDir(repo);
    let commits: CommitRecord[] = [];
    let total = 0;
    if (!isZeroId(input.after) && input.ref.startsWith('refs/heads/')) {
      let exclude: string[];
      if (!isZeroId(input.before)) exclude = [input.before];
      else {
        // A new branch: the commits no other branch has (Gitea lists those of the new branch).
        const branch = input.ref.slice('refs/heads/'.length);
        exclude = (await this.storage.branches(gitDir))
          .filter((other) => other.name !== branch)
          .map((other) => other.commitId);
      }
      const range = { start: input.after, exclude };
      [commits, total] = await Promise.all([
        CommitsGit.log(gitDir, { ...range, skip: 0, limit: PUSH_PAYLOAD_MAX_COMMITS }).catch(() => []),
        CommitsGit.count(gitDir, range).catch(() => 0),
      ]);
    }
    const changes = await CommitsGit.changes(
      gitDir,
      commits.map((commit) => commit.sha),
    ).catch(() => new Map<string, { filename: string; status: string }[]>());
    const payloadCommits = commits.map((commit) => this.payloadCommit(repo, commit, changes.get(commit.sha)));
    let head = payloadCommits[0] ?? null;
    if (!head && !isZeroId(input.after)) {
      const record = await CommitsGit.commit(gitDir, input.after).catch(() => null);
      if (record) head = this.payloadCommit(repo, record);
    }
    const pusher = await this.user(input.pusherId);
    const shortBefore = input.before.slice(0, 10);
    const shortAfter = input.after.slice(0, 10);
    return {
      ref: input.ref,
      before: input.before,
      after: input.after,
      compare_url:
        isZeroId(input.before) || isZeroId(input.after)
          ? ''
          : `${this.htmlUrl(repo)}/compare/${shortBefore}...${shortAfter}`,
      // Newest first, as git log lists them (Gitea keeps the newest FEED_MAX_COMMIT_NUM).
      commits: payloadCommits,
      total_commits: total,
      head_commit: head,
      repository: this.repository(repo),
      pusher,
      sender: pusher,
    };
  }

  /** The test route's push (Gitea's TestHook): one commit, before = after. */
  async testPush(repo: Repository, input: { ref: string; sha: string; actorId: string | null }) {
    const payload = await this.push(repo, {
      ref: input.ref,
      before: input.sha,
      after: input.sha,
      pusherId: input.actorId,
    });
    const head = payload.head_commit;
    return {
      ...payload,
      compare_url: `${this.htmlUrl(repo)}/compare/${input.sha}...${input.sha}`,
      commits: head ? [head] : [],
      total_commits: head ? 1 : 0,
    };
  }

  /** Gitea's CreatePayload (a new branch or tag; `ref` is the short name). */
  async create(repo: Repository, input: { ref: string; sha: string; actorId: string | null }) {
    const { name, type } = shortRef(input.ref);
    return {
      sha: input.sha,
      ref: name,
      ref_type: type,
      repository: this.repository(repo),
      sender: await this.user(input.actorId),
    };
  }

  /** Gitea's DeletePayload. */
  async delete(repo: Repository, input: { ref: string; actorId: string | null }) {
    const { name, type } = shortRef(input.ref);
    return {
      ref: name,
      ref_type: type,
      pusher_type: 'user',
      repository: this.repository(repo),
      sender: await this.user(input.actorId),
    };
  }

  /** Gitea's IssuePayload, or null when the issue is gone. */
  async issue(repo: Repository, input: { index: string; action: string; actorId: string | null }) {
    const issue = await this.issues.find(repo, input.index);
    if (!issue) return null;
    return {
      action: input.action,
      number: Number(issue.index),
      issue: presentGiteaIssue(issue, this.context(repo), await this.assets.ofIssue(issue), null),
      repository: this.repository(repo),
      sender: await this.user(input.actorId),
      commit_id: '',
    };
  }

  /** Gitea's PullRequest JSON of a pull request of `repo`, or null. */
  async pullRequest(repo: Repository, index: string) {
    const found = await this.pulls.find(repo, index);
    if (!found) return null;
    const base = this.repository(repo);
    let headRepo = found.pull.headRepository ?? null;
    if (!headRepo && found.pull.headRepositoryId)
      headRepo =
        found.pull.headRepositoryId === repo.id
          ? repo
          : await this.repositories.findById(found.pull.headRepositoryId);
    const head = headRepo ? { repo: this.repository(headRepo), ownerName: headRepo.owner.name } : null;
    return presentGiteaPull({ ...found, base, head }, this.context(repo));
  }

  /** Gitea's PullRequestPayload, or null when the pull request is gone. */
  async pull(repo: Repository, input: { index: string; action: string; actorId: string | null }) {
    const pull = await this.pullRequest(repo, input.index);
    if (!pull) return null;
    return {
      action: input.action,
      number: pull.number,
      pull_request: pull,
      requested_reviewer: null,
      repository: this.repository(repo),
      sender: await this.user(input.actorId),
      commit_id: '',
      review: null,
    };
  }

  /** Gitea's IssueCommentPayload for a new comment, or null when it is gone. */
  async comment(repo: Repository, input: { commentId: string; action: string; actorId: string | null }) {
    const found = await this.issues.requireComment(repo, input.commentId).catch(() => null);
    if (!found) return null;
    const { comment, issue } = found;
    const context = this.context(repo);
    return {
      action: input.action,
      issue: presentGiteaIssue(issue, context, await this.assets.ofIssue(issue), null),
      pull_request: issue.isPull ? await this.pullRequest(repo, issue.index) : undefined,
      comment: presentGiteaComment(comment, issue, context, await this.assets.ofComment(comment)),
      repository: this.repository(repo),
      sender: await this.user(input.actorId),
      is_pull: issue.isPull,
    };
  }

  /** Gitea's ReleasePayload; a deleted release is shown with what the event carries. */
  async release(
    repo: Repository,
    input: { releaseId: string; tag: string; action: 'published' | 'deleted'; actorId: string | null },
  ) {
    const found =
      input.action === 'deleted'
        ? null
        : await this.releases.require(repo, input.releaseId, true).catch(() => null);
    if (!found && input.action !== 'deleted') return null;
    const release = found
      ? presentGiteaRelease(found, this.context(repo), await this.assets.ofRelease(found))
      : { id: Number(input.releaseId), tag_name: input.tag };
    return {
      action: input.action,
      release,
      repository: this.repository(repo),
      sender: await this.user(input.actorId),
    };
  }
}

function shortRef(ref: string): { name: string; type: 'branch' | 'tag' } {
  if (ref.startsWith('refs/tags/')) return { name: ref.slice('refs/tags/'.length), type: 'tag' };
  return { name: ref.replace(/^refs\/heads\//, ''), type: 'branch' };
}

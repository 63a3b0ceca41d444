import { Injectable } from '@nestjs/common';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import {
  type OpenPullRequestInput,
  type PullRequestFacts,
  PullRequests,
} from '../../../platform/ports/pull-requests';
import { UsersService } from '../../identity/users.service';
import type { Repository } from '../entities/repository.entity';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { type Pull, PullsService } from './pulls.service';
import { PullsRepository } from './pulls.repository';

/**
 * The repositories module's implementation of the platform port PullRequests (chats open pull
 * requests and report on them): the same rules as `POST /repos/{owner}/{repo}/pulls`.
 */
@Injectable()
export class PullRequestsPortService extends PullRequests {
  constructor(
    private readonly pullRows: PullsRepository,
    private readonly pulls: PullsService,
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly users: UsersService,
  ) {
    super();
  }

  async open(userId: string, input: OpenPullRequestInput): Promise<PullRequestFacts> {
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError('user does not exist', { code: 'USER_NOT_FOUND' });
    const [ownerName, repoName, extra] = input.repository.split('/');
    if (!ownerName || !repoName || extra !== undefined)
      throw new InvalidError('repository must be "owner/name"', { code: 'REPOSITORY_NAME' });
    let resolved = await this.repositories.resolve(ownerName, repoName);
    if ('redirectTo' in resolved)
      resolved = await this.repositories.resolve(resolved.redirectTo.owner, resolved.redirectTo.name);
    if ('redirectTo' in resolved) throw new NotFoundError('repository does not exist');
    await this.permissions.require(user, resolved.repo, 'read');
    this.permissions.assertNotArchived(resolved.repo, resolved.owner.name);
    const created = await this.pulls.create(resolved.repo, user, {
      head: input.head,
      base: input.base,
      title: input.title,
      body: input.body,
    });
    created.issue.poster = user;
    return this.facts(resolved.repo, created);
  }

  async describe(issueIds: string[]): Promise<Map<string, PullRequestFacts>> {
    const out = new Map<string, PullRequestFacts>();
    if (issueIds.length === 0) return out;
    const rows = await this.pullRows.withIssues(issueIds);
    for (const row of rows) {
      const repo = row.issue.repository;
      if (!repo) continue;
      out.set(row.issueId, this.facts(repo, { issue: row.issue, pull: row }));
    }
    return out;
  }

  private facts(repo: Repository, { issue, pull }: Pull): PullRequestFacts {
    const fullName = `${repo.owner.name}/${repo.name}`;
    const poster = issue.poster;
    return {
      issueId: issue.id,
      repositoryId: repo.id,
      repository: fullName,
      number: Number(issue.index),
      title: issue.title,
      htmlUrl: `${this.repositories.publicUrl}${encodeURIComponent(repo.owner.name)}/${encodeURIComponent(repo.name)}/pulls/${issue.index}`,
      state: pull.hasMerged ? 'merged' : issue.isClosed ? 'closed' : 'open',
      draft: false,
      baseBranch: pull.baseBranch,
      headBranch: pull.headBranch,
      additions: pull.additions ?? 0,
      deletions: pull.deletions ?? 0,
      changedFiles: pull.changedFiles ?? 0,
      commits: pull.commitsCount ?? 0,
      authorLogin: poster?.name ?? null,
      authorAvatarUrl: poster
        ? poster.avatarUrl || `${this.repositories.publicUrl}avatars/${poster.lowerName}`
        : null,
      createdAt: issue.createdAt,
      mergedAt: pull.mergedAt,
      closedAt: issue.closedAt,
    };
  }
}

import { Injectable } from '@nestjs/common';
import { BadRequestError, ConflictError, NotFoundError } from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import { BranchGit } from '../branches/branch-git';
import { ContentsGit, type TreeEntry } from '../contents/contents-git';
import { cleanPath, ContentsService } from '../contents/contents.service';
import type { Repository } from '../entities/repository.entity';
import { type CommitFileChange, type CommitRecord, CommitsGit, type RefRecord } from './commits-git';

export interface CommitView extends CommitRecord {
  files: CommitFileChange[] | null;
  author: User | null;
  committer: User | null;
}

export interface CommitListOptions {
  sha?: string;
  path?: string;
  not?: string;
  page: number;
  limit: number;
  stat: boolean;
  files: boolean;
}

const commitNotFound = (sha: string) =>
  new NotFoundError(`object does not exist [id: ${sha}, rel_path: ]`, { code: 'COMMIT_NOT_FOUND' });

/** Commits, compare, refs, trees and blobs (Gitea's routers/api/v1/repo/commits.go, git_ref.go, tree.go, blob.go). */
@Injectable()
export class CommitsService {
  constructor(
    private readonly contents: ContentsService,
    private readonly users: UsersService,
  ) {}

  private gitDir(repo: Repository): string {
    return this.contents.gitDir(repo);
  }

  private async views(repo: Repository, records: CommitRecord[], withFiles: boolean): Promise<CommitView[]> {
    const changes = withFiles
      ? await CommitsGit.changes(
          this.gitDir(repo),
          records.map((record) => record.sha),
        )
      : new Map<string, CommitFileChange[]>();
    const byEmail = new Map<string, User | null>();
    const account = async (email: string) => {
      const key = email.toLowerCase();
      if (!byEmail.has(key)) byEmail.set(key, email ? await this.users.findByEmail(key) : null);
      return byEmail.get(key) ?? null;
    };
    const views: CommitView[] = [];
    for (const record of records)
      views.push({
        ...record,
        files: withFiles ? (changes.get(record.sha) ?? []) : null,
        author: await account(record.authorEmail),
        committer: await account(record.committerEmail),
      });
    return views;
  }

  /** Gitea's GetAllCommits: a page of history and the total; 409 for an empty repository. */
  async list(repo: Repository, options: CommitListOptions): Promise<{ items: CommitView[]; total: number }> {
    if (repo.isEmpty) throw new ConflictError('Git Repository is empty.', { code: 'REPOSITORY_EMPTY' });
    const gitDir = this.gitDir(repo);
    const start = options.sha
      ? ((await this.contents.tryResolve(repo, options.sha))?.commit ?? null)
      : ((await this.contents.tryResolve(repo, undefined))?.commit ?? null);
    if (!start)
      throw new NotFoundError(`no such ref: ${options.sha ?? repo.defaultBranch}`, { code: 'REF_NOT_FOUND' });
    const exclude: string[] = [];
    for (const spec of (options.not ?? '').split(/[\s,]+/).filter(Boolean)) {
      const resolved = await this.contents.tryResolve(repo, spec);
      if (resolved) exclude.push(resolved.commit);
    }
    const path = options.path ? (cleanPath(options.path) ?? undefined) : undefined;
    const range = { start, exclude, path };
    const [records, total] = await Promise.all([
      CommitsGit.log(gitDir, { ...range, skip: (options.page - 1) * options.limit, limit: options.limit }),
      CommitsGit.count(gitDir, range),
    ]);
    return { items: await this.views(repo, records, options.stat || options.files), total };
  }

  /** One commit by id or ref. */
  async get(repo: Repository, sha: string, withFiles: boolean): Promise<CommitView> {
    const resolved = await this.contents.tryResolve(repo, sha);
    const record = resolved ? await CommitsGit.commit(this.gitDir(repo), resolved.commit) : null;
    if (!record) throw commitNotFound(sha);
    return (await this.views(repo, [record], withFiles))[0]!;
  }

  /** Gitea's CompareDiff: the commits of `head` not in `base` (`base...head` or `base..head`), oldest last. */
  async compare(repo: Repository, basehead: string): Promise<{ commits: CommitView[]; total: number }> {
    const separator = basehead.includes('...') ? '...' : '..';
    const at = basehead.indexOf(separator);
    if (at <= 0) throw new NotFoundError('Compare: base and head are required', { code: 'REF_NOT_FOUND' });
    const base = await this.contents.tryResolve(repo, basehead.slice(0, at));
    const head = await this.contents.tryResolve(repo, basehead.slice(at + separator.length));
    if (!base || !head) throw new NotFoundError('GetRepoRawDiffForFile', { code: 'REF_NOT_FOUND' });
    const gitDir = this.gitDir(repo);
    const mergeBase = (await BranchGit.mergeBase(gitDir, base.commit, head.commit)) ?? base.commit;
    const range = { start: head.commit, exclude: [mergeBase] };
    const total = await CommitsGit.count(gitDir, range);
    const records = await CommitsGit.log(gitDir, { ...range, skip: 0, limit: Math.max(total, 1) });
    return { commits: await this.views(repo, records, true), total };
  }

  /** Gitea's GetRefs: every ref under `refs/<filter>` (a string prefix); 404 when none. */
  async refs(repo: Repository, filter: string): Promise<RefRecord[]> {
    if (repo.isEmpty) return [];
    const prefix = `refs/${filter.replace(/^refs\//, '')}`;
    const refs = (await CommitsGit.refs(this.gitDir(repo), 'refs/')).filter((ref) =>
      ref.ref.startsWith(prefix),
    );
    if (filter && refs.length === 0) throw new NotFoundError('not found', { code: 'REF_NOT_FOUND' });
    return refs;
  }

  /** Gitea's GetTreeBySHA: the entries of a tree (or a commit's tree), paged (`per_page`, default 1000). */
  async tree(
    repo: Repository,
    sha: string,
    options: { recursive: boolean; page: number; perPage: number },
  ): Promise<{ sha: string; entries: TreeEntry[]; total: number; truncated: boolean }> {
    if (!sha) throw new BadRequestError('sha not provided', { code: 'COMMIT_NOT_FOUND' });
    const gitDir = this.gitDir(repo);
    const type = await ContentsGit.objectType(gitDir, sha);
    let tree: string | null = null;
    if (type === 'tree') tree = await ContentsGit.revParse(gitDir, `${sha}^{tree}`);
    else {
      const resolved = await this.contents.tryResolve(repo, sha);
      if (resolved) tree = (await ContentsGit.entry(gitDir, resolved.commit, ''))!.sha;
    }
    if (!tree)
      throw new NotFoundError(`object does not exist [id: ${sha}, rel_path: ]`, { code: 'COMMIT_NOT_FOUND' });
    const all = options.recursive
      ? await ContentsGit.listRecursive(gitDir, tree)
      : await ContentsGit.list(gitDir, tree, '');
    const from = (options.page - 1) * options.perPage;
    const entries = all.slice(from, from + options.perPage);
    return { sha: tree, entries, total: all.length, truncated: from + entries.length < all.length };
  }

  async blob(repo: Repository, sha: string): Promise<{ sha: string; size: number; content: Buffer }> {
    if (!sha) throw new BadRequestError('sha not provided', { code: 'COMMIT_NOT_FOUND' });
    const gitDir = this.gitDir(repo);
    if ((await ContentsGit.objectType(gitDir, sha)) !== 'blob')
      throw new NotFoundError(`object does not exist [id: ${sha}, rel_path: ]`, { code: 'COMMIT_NOT_FOUND' });
    const full = (await ContentsGit.revParse(gitDir, `${sha}^{blob}`)) ?? sha;
    const content = await ContentsGit.blob(gitDir, full);
    return { sha: full, size: content.length, content };
  }
}

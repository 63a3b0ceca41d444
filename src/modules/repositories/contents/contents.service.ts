import { Injectable } from '@nestjs/common';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import type { RequestSnapshot } from '../../../platform/events/subject-events';
import type { User } from '../../identity/entities/user.entity';
import { BranchGit, type CommitDetails, ZERO_ID } from '../branches/branch-git';
import { RefUpdateChecks } from '../branches/ref-update-checks.service';
import type { Repository } from '../entities/repository.entity';
import { RefChangesService } from '../ref-changes.service';
import { RepositoriesService } from '../repositories.service';
import {
  ContentsGit,
  type LastCommit,
  type Signature,
  type TreeChange,
  type TreeEntry,
} from './contents-git';

/** A commit-ish resolved for reading: the commit and how Gitea names it in links (`branch`, `tag`, `commit`). */
export interface ResolvedRef {
  commit: string;
  name: string;
  kind: 'branch' | 'tag' | 'commit';
}

export interface ContentEntry extends TreeEntry {
  lastCommit: LastCommit | null;
  /** Base64 of the blob (files), or the link target (symlinks); undefined in listings. */
  content?: Buffer;
}

export type ContentsResult = { kind: 'file'; entry: ContentEntry } | { kind: 'dir'; entries: ContentEntry[] };

export interface FileChangeInput {
  operation: 'create' | 'update' | 'delete';
  path: string;
  content?: Buffer;
  sha?: string;
  fromPath?: string;
}

export interface ChangeFilesInput {
  files: FileChangeInput[];
  branch?: string;
  newBranch?: string;
  message?: string;
  author?: Partial<Signature>;
  committer?: Partial<Signature>;
  dates?: { author?: string; committer?: string };
}

export interface ChangeFilesResult {
  commit: CommitDetails & { tree: string; parents: string[] };
  branch: string;
  /** The entries written, in the order of the input (null for deletions). */
  entries: (ContentEntry | null)[];
}

export const notExist = (what: string) =>
  new NotFoundError(`object does not exist [id: , rel_path: ${what}]`, { code: 'CONTENT_NOT_FOUND' });

/**
 * Files of a repository through the API (Gitea's services/repository/files): reads from any
 * commit-ish, writes that make real commits (git plumbing, no work tree) and move the branch as a
 * push would: branch protection first (RefUpdateChecks), a compare-and-swap ref move, the ref change
 * recorded through RefChangesService (the push job: events, pull refreshes, hooks).
 */
@Injectable()
export class ContentsService {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly refChecks: RefUpdateChecks,
    private readonly refChanges: RefChangesService,
  ) {}

  gitDir(repo: Repository): string {
    return this.repositories.gitDir(repo.owner, repo);
  }

  /** `ref` (branch, tag, full ref or commit id; the default branch when empty) to a commit, or 404. */
  async resolve(repo: Repository, ref: string | undefined): Promise<ResolvedRef> {
    const found = await this.tryResolve(repo, ref);
    if (!found)
      throw new NotFoundError(`no such ref: ${ref || repo.defaultBranch}`, { code: 'REF_NOT_FOUND' });
    return found;
  }

  async tryResolve(repo: Repository, ref: string | undefined): Promise<ResolvedRef | null> {
    const gitDir = this.gitDir(repo);
    const name = ref || repo.defaultBranch;
    if (!name || name.startsWith('-')) return null;
    for (const [prefix, kind] of [
      ['refs/heads/', 'branch'],
      ['refs/tags/', 'tag'],
    ] as const) {
      const short = name.startsWith(prefix) ? name.slice(prefix.length) : name;
      const commit = await BranchGit.resolveCommit(gitDir, `${prefix}${short}`);
      if (commit) return { commit, name: short, kind };
    }
    if (/^[0-9a-f]{4,64}$/i.test(name)) {
      const commit = await BranchGit.resolveCommit(gitDir, name);
      if (commit) return { commit, name: commit, kind: 'commit' };
    }
    return null;
  }

  /**
   * Gitea's raw route without `?ref=`: the path may start with a branch, a tag or a commit id
   * (`raw/main/docs/a.md`); the longest branch or tag prefix wins, else the default branch.
   */
  async resolvePathRef(repo: Repository, filePath: string): Promise<{ ref: ResolvedRef; path: string }> {
    const parts = filePath.split('/');
    for (let i = parts.length - 1; i >= 1; i--) {
      const candidate = parts.slice(0, i).join('/');
      const gitDir = this.gitDir(repo);
      for (const [prefix, kind] of [
        ['refs/heads/', 'branch'],
        ['refs/tags/', 'tag'],
      ] as const) {
        if (await BranchGit.refExists(gitDir, `${prefix}${candidate}`)) {
          const commit = (await BranchGit.resolveCommit(gitDir, `${prefix}${candidate}`))!;
          return { ref: { commit, name: candidate, kind }, path: parts.slice(i).join('/') };
        }
      }
    }
    if (parts.length > 1 && /^[0-9a-f]{7,64}$/i.test(parts[0]!)) {
      const commit = await BranchGit.resolveCommit(this.gitDir(repo), parts[0]!);
      if (commit) return { ref: { commit, name: commit, kind: 'commit' }, path: parts.slice(1).join('/') };
    }
    return { ref: await this.resolve(repo, undefined), path: filePath };
  }

  /** An entry (a blob, for raw downloads), or 404. */
  async blobAt(repo: Repository, ref: ResolvedRef, filePath: string): Promise<TreeEntry> {
    const entry =
      cleanPath(filePath) === null
        ? null
        : await ContentsGit.entry(this.gitDir(repo), ref.commit, cleanPath(filePath)!);
    if (!entry || entry.type !== 'blob') throw notExist(filePath);
    return entry;
  }

  /** Gitea's GetContentsOrList: a file with its content, or a directory's entries. */
  async get(repo: Repository, ref: ResolvedRef, filePath: string): Promise<ContentsResult> {
    const gitDir = this.gitDir(repo);
    const clean = cleanPath(filePath);
    const entry = clean === null ? null : await ContentsGit.entry(gitDir, ref.commit, clean);
    if (!entry) throw notExist(filePath);
    if (entry.type === 'tree') {
      const children = await ContentsGit.list(gitDir, entry.sha, entry.path);
      const entries: ContentEntry[] = [];
      for (const child of children)
        entries.push({ ...child, lastCommit: await ContentsGit.lastCommit(gitDir, ref.commit, child.path) });
      return { kind: 'dir', entries };
    }
    return { kind: 'file', entry: await this.withContent(gitDir, ref.commit, entry) };
  }

  private async withContent(gitDir: string, commit: string, entry: TreeEntry): Promise<ContentEntry> {
    const lastCommit = await ContentsGit.lastCommit(gitDir, commit, entry.path);
    if (entry.type !== 'blob') return { ...entry, lastCommit };
    return { ...entry, lastCommit, content: await ContentsGit.blob(gitDir, entry.sha) };
  }

  /** Gitea's ChangeRepoFiles: one commit for every change, on `branch` or a new branch from it. */
  async change(
    repo: Repository,
    actor: User,
    input: ChangeFilesInput,
    request: RequestSnapshot | null,
  ): Promise<ChangeFilesResult> {
    const gitDir = this.gitDir(repo);
    const branch = input.branch || repo.defaultBranch;
    const parent = await BranchGit.tip(gitDir, branch);
    if (!parent && !(repo.isEmpty && !input.newBranch))
      throw new NotFoundError(`branch does not exist [name: ${branch}]`, { code: 'BRANCH_NOT_FOUND' });
    const target = input.newBranch || branch;
    if (input.newBranch && (await BranchGit.refExists(gitDir, `refs/heads/${input.newBranch}`)))
      throw new InvalidError(`branch already exists [name: ${input.newBranch}]`, { code: 'BRANCH_EXISTS' });

    const changes: TreeChange[] = [];
    for (const file of input.files) {
      const filePath = cleanPath(file.path);
      if (!filePath)
        throw new InvalidError(`path contains a malformed path component [path: ${file.path}]`, {
          code: 'CONTENT_PATH',
        });
      const existing = parent ? await ContentsGit.entry(gitDir, parent, filePath) : null;
      if (file.operation === 'create') {
        if (existing)
          throw new InvalidError(`repository file already exists [path: ${filePath}]`, {
            code: 'CONTENT_EXISTS',
          });
        await this.assertNoFileInTheWay(gitDir, parent, filePath);
        changes.push({ path: filePath, content: file.content ?? Buffer.alloc(0) });
        continue;
      }
      if (!file.sha)
        throw new InvalidError('a SHA or commit ID must be provided when updating a file', {
          code: 'CONTENT_SHA_REQUIRED',
        });
      const fromPath = file.operation === 'update' && file.fromPath ? cleanPath(file.fromPath) : filePath;
      if (!fromPath)
        throw new InvalidError(`path contains a malformed path component [path: ${file.fromPath}]`, {
          code: 'CONTENT_PATH',
        });
      const source =
        fromPath === filePath ? existing : parent ? await ContentsGit.entry(gitDir, parent, fromPath) : null;
      if (!source || source.type !== 'blob')
        throw new NotFoundError(`repository file does not exist [path: ${fromPath}]`, {
          code: 'CONTENT_NOT_FOUND',
        });
      if (source.sha !== file.sha)
        throw new InvalidError(`sha does not match [given: ${file.sha}, expected: ${source.sha}]`, {
          code: 'CONTENT_SHA_MISMATCH',
        });
      if (file.operation === 'delete') {
        changes.push({ path: filePath, remove: true });
        continue;
      }
      if (fromPath !== filePath) {
        if (existing)
          throw new InvalidError(`repository file already exists [path: ${filePath}]`, {
            code: 'CONTENT_EXISTS',
          });
        changes.push({ path: fromPath, remove: true });
      }
      changes.push({ path: filePath, content: file.content ?? Buffer.alloc(0) });
    }

    const doer = { name: actor.fullName || actor.name, email: actor.email };
    const author = signature(input.author, input.committer, doer, input.dates?.author);
    const committer = signature(input.committer, input.author, doer, input.dates?.committer);
    const message = input.message || defaultMessage(input.files);
    const written = await ContentsGit.commitChanges({ gitDir, parent, changes, message, author, committer });

    const oldId = input.newBranch || !parent ? ZERO_ID : parent;
    const update = { ref: `refs/heads/${target}`, oldId, newId: written.commit };
    const refusal = await this.refChecks.refusal(repo, actor, [update], { gitDir });
    if (refusal) throw new ForbiddenError(refusal, 'permission', { code: 'BRANCH_PROTECTED' });
    if (!(await BranchGit.updateRefs(gitDir, [update])))
      throw new ConflictError('The branch moved meanwhile; try again.', { code: 'BRANCH_MOVED' });
    await this.refChanges.record({ repo, actor, source: 'api', request, refs: [update] });

    const details = (await BranchGit.commits(gitDir, [written.commit])).get(written.commit)!;
    const entries: (ContentEntry | null)[] = [];
    for (const file of input.files) {
      if (file.operation === 'delete') {
        entries.push(null);
        continue;
      }
      const entry = await ContentsGit.entry(gitDir, written.commit, cleanPath(file.path)!);
      entries.push(entry ? await this.withContent(gitDir, written.commit, entry) : null);
    }
    return {
      commit: { ...details, tree: written.tree, parents: parent ? [parent] : [] },
      branch: target,
      entries,
    };
  }

  /** Gitea refuses to create `a/b` when `a` is a file (`a file exists where you're trying to create a subdirectory`). */
  private async assertNoFileInTheWay(gitDir: string, parent: string | null, filePath: string): Promise<void> {
    if (!parent) return;
    const parts = filePath.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      const entry = await ContentsGit.entry(gitDir, parent, dir);
      if (!entry) return;
      if (entry.type !== 'tree')
        throw new InvalidError(`a file exists where you’re trying to create a subdirectory [path: ${dir}]`, {
          code: 'CONTENT_PATH',
        });
    }
  }
}

/** Gitea's CleanGitTreePath: no empty, `.` or `..` segments, no `.git`; '' is the root. Null when malformed. */
export function cleanPath(raw: string): string | null {
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const parts = trimmed.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git'))
    return null;
  if (trimmed.includes('\0')) return null;
  return trimmed;
}

function signature(
  own: Partial<Signature> | undefined,
  other: Partial<Signature> | undefined,
  doer: { name: string; email: string },
  date: string | undefined,
): Signature {
  const chosen = own?.name || own?.email ? own : other?.name || other?.email ? other : doer;
  return {
    name: chosen?.name || doer.name,
    email: chosen?.email || doer.email,
    ...(date ? { date } : {}),
  };
}

/** Gitea's changeFilesCommitMessage: `Add a`, `Update b`, `Delete c`, one line per kind. */
function defaultMessage(files: FileChangeInput[]): string {
  const of = (operation: FileChangeInput['operation']) =>
    files.filter((file) => file.operation === operation).map((file) => file.path);
  return [
    ['Add', of('create')],
    ['Update', of('update')],
    ['Delete', of('delete')],
  ]
    .filter(([, paths]) => paths.length > 0)
    .map(([verb, paths]) => `${verb as string} ${(paths as string[]).join(', ')}`)
    .join('\n');
}

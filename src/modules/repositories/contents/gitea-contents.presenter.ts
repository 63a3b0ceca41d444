import type { CommitDetails } from '../branches/branch-git';
import type { ChangeFilesResult, ContentEntry, ResolvedRef } from './contents.service';

/** Where a repository's links start: `<PUBLIC_URL>api/v1/repos/o/r` and `<PUBLIC_URL>o/r`. */
export interface RepoLinks {
  api: string;
  html: string;
}

export function repoLinks(publicUrl: string, ownerName: string, repoName: string): RepoLinks {
  const path = `${encodeURIComponent(ownerName)}/${encodeURIComponent(repoName)}`;
  return { api: `${publicUrl}api/v1/repos/${path}`, html: `${publicUrl}${path}` };
}

/** Gitea's PathEscapeSegments. */
export const escapePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

const TYPES: Record<string, string> = { blob: 'file', tree: 'dir', commit: 'submodule' };

/** Gitea `api.ContentsResponse` (services/repository/files/content.go). */
export function presentContent(
  entry: ContentEntry,
  ref: ResolvedRef,
  links: RepoLinks,
  withContent: boolean,
) {
  const type = entry.mode === '120000' ? 'symlink' : (TYPES[entry.type] ?? 'file');
  const self = `${links.api}/contents/${escapePath(entry.path)}?ref=${encodeURIComponent(ref.name)}`;
  const gitUrl =
    type === 'dir' ? `${links.api}/git/trees/${entry.sha}` : `${links.api}/git/blobs/${entry.sha}`;
  const refPath = `${ref.kind}/${escapePath(ref.name)}`;
  const htmlUrl = `${links.html}/src/${refPath}/${escapePath(entry.path)}`;
  const downloadUrl = type === 'file' ? `${links.html}/raw/${refPath}/${escapePath(entry.path)}` : null;
  return {
    name: entry.path.split('/').pop() ?? '',
    path: entry.path,
    sha: entry.sha,
    last_commit_sha: entry.lastCommit?.sha ?? '',
    last_commit_message: entry.lastCommit?.message ?? '',
    last_author_date: entry.lastCommit?.authorDate ?? '',
    last_committer_date: entry.lastCommit?.committerDate ?? '',
    type,
    size: entry.size,
    encoding: type === 'file' && withContent ? 'base64' : null,
    content: type === 'file' && withContent ? (entry.content ?? Buffer.alloc(0)).toString('base64') : null,
    target: type === 'symlink' && withContent ? (entry.content?.toString('utf8') ?? null) : null,
    url: self,
    html_url: htmlUrl,
    git_url: gitUrl,
    download_url: downloadUrl,
    submodule_git_url: null,
    _links: { self, git: gitUrl, html: htmlUrl },
  };
}

/** Gitea `api.FileCommitResponse`. */
export function presentFileCommit(
  commit: CommitDetails & { tree: string; parents: string[] },
  links: RepoLinks,
) {
  return {
    url: `${links.api}/git/commits/${commit.id}`,
    sha: commit.id,
    created: commit.committerDate,
    html_url: `${links.html}/commit/${commit.id}`,
    author: { name: commit.authorName, email: commit.authorEmail, date: commit.authorDate },
    committer: { name: commit.committerName, email: commit.committerEmail, date: commit.committerDate },
    parents: commit.parents.map((sha) => ({
      url: `${links.api}/git/commits/${sha}`,
      sha,
      html_url: `${links.html}/commit/${sha}`,
    })),
    message: commit.message,
    tree: { url: `${links.api}/git/trees/${commit.tree}`, sha: commit.tree, created: commit.committerDate },
  };
}

/** Gitea's verification for a commit devplane cannot verify. */
export const NOT_SIGNED = {
  verified: false,
  reason: 'gpg.error.not_signed_commit',
  signature: '',
  signer: null,
  payload: '',
};

/** Gitea `api.FileResponse` / `api.FileDeleteResponse` for the first file of a change. */
export function presentFileResponse(result: ChangeFilesResult, links: RepoLinks, index = 0) {
  const entry = result.entries[index] ?? null;
  const ref: ResolvedRef = { commit: result.commit.id, name: result.branch, kind: 'branch' };
  return {
    content: entry ? presentContent(entry, ref, links, true) : null,
    commit: presentFileCommit(result.commit, links),
    verification: NOT_SIGNED,
  };
}

/** Gitea `api.FilesResponse`. */
export function presentFilesResponse(result: ChangeFilesResult, links: RepoLinks) {
  const ref: ResolvedRef = { commit: result.commit.id, name: result.branch, kind: 'branch' };
  return {
    files: result.entries.map((entry) => (entry ? presentContent(entry, ref, links, true) : null)),
    commit: presentFileCommit(result.commit, links),
    verification: NOT_SIGNED,
  };
}

import { presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import type { User } from '../../identity/entities/user.entity';
import type { TreeEntry } from '../contents/contents-git';
import { NOT_SIGNED, type RepoLinks } from '../contents/gitea-contents.presenter';
import type { RefRecord } from './commits-git';
import type { CommitView } from './commits.service';

/** Gitea `api.Commit` (services/convert ToCommit). */
export function presentCommit(
  commit: CommitView,
  links: RepoLinks,
  context: { viewer: User | null; publicUrl: string; stat: boolean; files: boolean },
) {
  const url = `${links.api}/git/commits/${commit.sha}`;
  const user = (account: User | null) =>
    account ? presentGiteaUser(account, context.viewer ?? undefined, context.publicUrl) : null;
  const additions = (commit.files ?? []).reduce((sum, file) => sum + file.additions, 0);
  const deletions = (commit.files ?? []).reduce((sum, file) => sum + file.deletions, 0);
  return {
    url,
    sha: commit.sha,
    created: commit.committerDate,
    html_url: `${links.html}/commit/${commit.sha}`,
    commit: {
      url,
      author: { name: commit.authorName, email: commit.authorEmail, date: commit.authorDate },
      committer: { name: commit.committerName, email: commit.committerEmail, date: commit.committerDate },
      message: commit.message,
      tree: { url: `${links.api}/git/trees/${commit.tree}`, sha: commit.tree, created: commit.committerDate },
      verification: NOT_SIGNED,
    },
    author: user(commit.author),
    committer: user(commit.committer),
    parents: commit.parents.map((sha) => ({ url: `${links.api}/git/commits/${sha}`, sha, created: '' })),
    files:
      context.files && commit.files
        ? commit.files.map((file) => ({ filename: file.filename, status: file.status }))
        : null,
    stats: context.stat ? { total: additions + deletions, additions, deletions } : null,
  };
}

/** Gitea `api.Reference`. */
export function presentReference(ref: RefRecord, links: RepoLinks) {
  const kind = ref.type === 'tag' ? 'tags' : ref.type === 'commit' ? 'commits' : `${ref.type}s`;
  return {
    ref: ref.ref,
    url: `${links.api}/git/${ref.ref.split('/').map(encodeURIComponent).join('/')}`,
    object: { type: ref.type, sha: ref.sha, url: `${links.api}/git/${kind}/${ref.sha}` },
  };
}

/** Gitea `api.GitEntry`. */
export function presentGitEntry(entry: TreeEntry, links: RepoLinks) {
  const kind = entry.type === 'tree' ? 'trees' : entry.type === 'blob' ? 'blobs' : 'commits';
  return {
    path: entry.path,
    mode: entry.mode,
    type: entry.type,
    size: entry.size,
    sha: entry.sha,
    url: `${links.api}/git/${kind}/${entry.sha}`,
  };
}

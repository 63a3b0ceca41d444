import { presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import type { User } from '../../identity/entities/user.entity';
import type { RepoLinks } from '../contents/gitea-contents.presenter';
import type { CommitStatus } from './commit-status.entity';

/** Gitea `api.CommitStatus`. */
export function presentCommitStatus(
  status: CommitStatus,
  links: RepoLinks,
  viewer: User | null,
  publicUrl: string,
) {
  return {
    id: Number(status.id),
    status: status.state,
    target_url: status.targetUrl,
    description: status.description,
    url: `${links.api}/statuses/${status.sha}`,
    context: status.context,
    creator: status.creator ? presentGiteaUser(status.creator, viewer ?? undefined, publicUrl) : null,
    created_at: status.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    updated_at: status.updatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

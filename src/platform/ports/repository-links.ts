/** A repository as the modules that link to one (packages) see it. */
export interface LinkedRepository {
  id: string;
  ownerId: string;
  name: string;
}

export type RepositoryAccess = 'none' | 'read' | 'write' | 'admin' | 'owner';

/**
 * Repositories for the modules that link things to them (packages, spec 3 link/unlink), a port of
 * the platform: the repositories module implements it and provides it globally, so the packages
 * module needs no import of the repositories module (layers: modules talk through ports and events).
 */
export abstract class RepositoryLinks {
  /** The repository `name` of the account `ownerId` (case-insensitive), or null. */
  abstract find(ownerId: string, name: string): Promise<LinkedRepository | null>;
  abstract findById(id: string): Promise<LinkedRepository | null>;
  /** The access the user (null: anonymous) has to the repository, Gitea's modes. */
  abstract accessOf(userId: string | null, repositoryId: string): Promise<RepositoryAccess>;
  /** The repository in Gitea's Repository JSON for this viewer, or null when the viewer cannot read it (or it is gone). */
  abstract presentForGitea(
    repositoryId: string,
    viewerId: string | null,
  ): Promise<Record<string, unknown> | null>;
}

/** Events emitted by the identity module (after commit). */
export interface IdentityEvents {
  'user.created': {
    userId: string;
    uuid: string;
    username: string;
    email: string;
    createdBy: string | null;
    sendNotify: boolean;
  };
  'user.updated': { userId: string; changed: string[] };
  'user.status_changed': { userId: string; from: string; to: string; actorId: string | null };
  'user.deleted': { userId: string; uuid: string; username: string; purge: boolean; actorId: string | null };
  'user.renamed': { userId: string; from: string; to: string };
  /** An organization's workspace sharing mode changed (the workspaces module drops shares the new mode forbids). */
  'organization.workspace_sharing_changed': { organizationId: string; from: string; to: string };
}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends IdentityEvents {}
}

/** ClusterBus topic: chats became pending (runners on every instance wake up). */
export const CHATS_PENDING_TOPIC = 'chats.pending';

/** ClusterBus topic prefix: a chat's tools changed its workspace (git watchers of the chat rescan). */
export const GIT_DIRTY_TOPIC = 'chats.git_dirty:';

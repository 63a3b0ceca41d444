/** ClusterBus topic: chats became pending (runners on every instance wake up). */
export const CHATS_PENDING_TOPIC = 'chats.pending';

import { realtimeSubject } from '../../platform/realtime/realtime-subjects';

/**
 * What the workspaces module announces. Build state changes go to watchers on every instance through
 * the RealtimeHub subject `workspace-builds`; a claimed prebuild's reinitialization goes over the
 * ClusterBus topic `workspace.reinit:<workspace id>` as a JSON string (see prebuilds.service.ts).
 */
export const BUILD_UPDATES_SUBJECT = realtimeSubject('workspace-builds');
export const PROVISIONER_WAKE_TOPIC = 'provisioner.jobs';
export const REINIT_TOPIC_PREFIX = 'workspace.reinit:';

/** Coder's fixed id of the prebuilds system user (owner and initiator of unclaimed prebuilt workspaces). */
export const PREBUILDS_USER_ID = 'c42fdf75-3097-471c-8c33-fb52454d81c0';
export const PREBUILDS_USER_NAME = 'prebuilds';

/** A frame of the build watch (Coder's watch-all-workspacebuilds). */
export interface BuildUpdateFrame {
  workspace_id: string;
  workspace_name: string;
  build_id: string;
  transition: string;
  job_status: string;
  build_number: number;
}

/** Notification templates this module asks for (devplane ids; seeded by the notifications module). */
export const TASK_NOTIFICATION_TEMPLATES = {
  taskPaused: 'd6ae6d7e-0b0b-4d8e-9a52-5b7c6f3f1a01',
  taskResumed: 'd6ae6d7e-0b0b-4d8e-9a52-5b7c6f3f1a02',
} as const;

declare module '../../platform/realtime/realtime-subjects' {
  interface RealtimeSubjects {
    /** Every build state change, on every instance (the build watch). */
    'workspace-builds': BuildUpdateFrame;
  }
}

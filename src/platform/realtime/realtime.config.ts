import { type AppConfig, int } from '../config/app-config';

export interface RealtimeSettings {
  /** Interval of WebSocket pings and SSE comment lines; a WebSocket that missed the last pong is dropped. */
  heartbeatMs: number;
  /** Unsent bytes one connection may hold before it is dropped as too slow. */
  maxBufferedBytes: number;
}

export const REALTIME_SETTINGS = Symbol('REALTIME_SETTINGS');

/** `REALTIME_HEARTBEAT_MS` (default 15 s), `REALTIME_MAX_BUFFERED_BYTES` (default 1 MiB). */
export function loadRealtimeSettings(config: AppConfig): RealtimeSettings {
  return {
    heartbeatMs: int(config.env, 'REALTIME_HEARTBEAT_MS', 15_000, 20, 3_600_000),
    maxBufferedBytes: int(config.env, 'REALTIME_MAX_BUFFERED_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
  };
}

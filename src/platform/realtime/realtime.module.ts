import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { RealtimeConnections } from './realtime-connections.service';
import { RealtimeGateways } from './realtime-gateways.service';
import { RealtimeHub } from './realtime-hub.service';
import { loadRealtimeSettings, REALTIME_SETTINGS } from './realtime.config';
import { SseStreams } from './sse-streams.service';

/** The realtime layer (README.md): hub, connection registry, WebSocket upgrade rules, SSE streams. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: REALTIME_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadRealtimeSettings(config),
    },
    RealtimeHub,
    RealtimeConnections,
    RealtimeGateways,
    SseStreams,
  ],
  exports: [RealtimeHub, RealtimeConnections, RealtimeGateways, SseStreams, REALTIME_SETTINGS],
})
export class RealtimeModule {}

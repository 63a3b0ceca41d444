import { Global, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ClusterBus } from './cluster-bus.service';
import { EventBus } from './event-bus.service';

@Global()
@Module({
  imports: [EventEmitterModule.forRoot({ wildcard: false, ignoreErrors: false })],
  providers: [EventBus, ClusterBus],
  exports: [EventBus, ClusterBus],
})
export class EventsModule {}

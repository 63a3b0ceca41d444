import { Injectable } from '@nestjs/common';
import { EventEmitter2, OnEvent } from '@nestjs/event-emitter';
import type { DomainEventMap, DomainEventName } from './event-map';

/** Typed facade over @nestjs/event-emitter for in-process domain events. */
@Injectable()
export class EventBus {
  constructor(private readonly emitter: EventEmitter2) {}

  emit<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void {
    this.emitter.emit(name, payload);
  }

  /** Emits and waits for async listeners (used where the caller needs the reaction, e.g. tests, CLI). */
  async emitAsync<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): Promise<void> {
    await this.emitter.emitAsync(name, payload);
  }
}

/** `@OnDomainEvent('user.created')`: a listener whose name is checked against the event map. */
export function OnDomainEvent<K extends DomainEventName>(
  name: K,
  options: { async?: boolean } = {},
): MethodDecorator {
  // Listener errors are logged by the emitter's error handling (suppressErrors false → they surface).
  return OnEvent(name, { async: options.async ?? true, promisify: true, suppressErrors: false });
}

import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../platform/events/event-bus.service';
import type { DomainEventMap } from '../../platform/events/event-map';
import { RealtimeConnections } from '../../platform/realtime/realtime-connections.service';

/**
 * Issue 11.6: when a user's credentials change (logout, API key deleted, password changed,
 * suspended, deleted, edited: prohibit_login...), every instance re-checks that user's open
 * sockets and streams (RealtimeConnections.revokeUser over the ClusterBus) and closes those that
 * lost their right, within the NOTIFY round trip.
 */
@Injectable()
export class RealtimeRevocationListener {
  constructor(private readonly connections: RealtimeConnections) {}

  @OnDomainEvent('auth.token_revoked')
  async tokenRevoked(event: DomainEventMap['auth.token_revoked']): Promise<void> {
    await this.connections.revokeUser(event.userId);
  }

  @OnDomainEvent('auth.password_changed')
  async passwordChanged(event: DomainEventMap['auth.password_changed']): Promise<void> {
    await this.connections.revokeUser(event.userId);
  }

  @OnDomainEvent('user.status_changed')
  async statusChanged(event: DomainEventMap['user.status_changed']): Promise<void> {
    if (event.to !== 'active') await this.connections.revokeUser(event.userId);
  }

  @OnDomainEvent('user.updated')
  async updated(event: DomainEventMap['user.updated']): Promise<void> {
    await this.connections.revokeUser(event.userId);
  }

  @OnDomainEvent('user.deleted')
  async deleted(event: DomainEventMap['user.deleted']): Promise<void> {
    await this.connections.revokeUser(event.userId);
  }
}

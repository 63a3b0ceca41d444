import { Injectable } from '@nestjs/common';
import { OnDomainEvent } from '../../platform/events/event-bus.service';
import type { DomainEventMap } from '../../platform/events/event-map';
import { WorkspacesService } from './workspaces.service';

/** An organization's sharing mode changed: shares it no longer allows are dropped (reference D.8). */
@Injectable()
export class WorkspaceSharingListener {
  constructor(private readonly workspaces: WorkspacesService) {}

  @OnDomainEvent('organization.workspace_sharing_changed')
  async onSharingChanged(event: DomainEventMap['organization.workspace_sharing_changed']): Promise<void> {
    if (event.to === 'everyone') return;
    await this.workspaces.clearShares(event.organizationId, event.to === 'service_accounts');
  }
}

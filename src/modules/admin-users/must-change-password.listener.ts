import { Injectable } from '@nestjs/common';
import type { DomainEventMap } from '../../platform/events/event-map';
import { OnDomainEvent } from '../../platform/events/event-bus.service';
import { AccountAdministration } from '../identity/account-administration.service';

/**
 * `must_change_password` (set by POST /admin/users, default true) locks the Gitea API with 403 until
 * the user changes the password, as in Gitea. devplane's password changes are the Coder dialect's
 * (`PUT /api/v2/users/{user}/password` by the user, or the one-time-passcode reset): when the user
 * changes it, the flag is cleared. A change by someone else (`via: 'admin'`) keeps it, as Gitea's
 * administrator edit does. Listeners of committed events are awaited, so the next request sees it.
 */
@Injectable()
export class MustChangePasswordListener {
  constructor(private readonly accounts: AccountAdministration) {}

  @OnDomainEvent('auth.password_changed')
  async onPasswordChanged(event: DomainEventMap['auth.password_changed']): Promise<void> {
    if (event.via === 'admin') return;
    await this.accounts.clearMustChangePassword(event.userId);
  }
}

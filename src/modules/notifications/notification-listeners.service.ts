import { IdentityDirectory } from '../identity/identity-directory.service';
import { Injectable, Logger } from '@nestjs/common';
import type { DomainEventMap } from '../../platform/events/event-map';
import { OnDomainEvent } from '../../platform/events/event-bus.service';
import { UsersService } from '../identity/users.service';
import { type EnqueueRequest, NotificationEnqueuer } from './delivery/notification-enqueuer.service';
import { NotificationMessagesRepository } from './delivery/notification-messages.repository';
import { NotificationPreferencesRepository } from './notification-preferences.repository';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from './template-ids';

/**
 * Reactions to other modules' events (after their commit, in process). Each listener logs and
 * swallows its own failures: a notification problem never fails the producer's request.
 */
@Injectable()
export class NotificationListeners {
  private readonly logger = new Logger(NotificationListeners.name);

  constructor(
    private readonly messages: NotificationMessagesRepository,
    private readonly preferences: NotificationPreferencesRepository,
    private readonly enqueuer: NotificationEnqueuer,
    private readonly users: UsersService,
    private readonly directory: IdentityDirectory,
  ) {}

  private async enqueue(request: EnqueueRequest): Promise<void> {
    try {
      await this.enqueuer.enqueue(request);
    } catch (error) {
      this.logger.error(
        { err: error, templateId: request.templateId, userId: request.userId },
        'enqueue failed',
      );
    }
  }

  /** Active owners and user-admins (Coder notifies both roles of account events). */
  private async accountAdmins(exceptUserId?: string): Promise<string[]> {
    return (await this.directory.activeAccountAdminIds()).filter((id) => id !== exceptUserId);
  }

  private async nameOf(userId: string | null): Promise<string> {
    if (!userId) return 'system';
    return (await this.users.findById(userId))?.name ?? 'system';
  }

  @OnDomainEvent('notification.requested')
  async onRequested(event: DomainEventMap['notification.requested']): Promise<void> {
    await this.enqueue({
      templateId: event.templateId,
      userId: event.userId,
      labels: event.labels,
      data: event.data ?? null,
      targets: event.targets,
      createdBy: event.createdBy ?? 'notification.requested',
    });
  }

  @OnDomainEvent('auth.one_time_passcode_requested')
  async onPasscode(event: DomainEventMap['auth.one_time_passcode_requested']): Promise<void> {
    const user = await this.users.findById(event.userId);
    await this.enqueue({
      templateId: IDS.oneTimePasscode,
      userId: event.userId,
      labels: { one_time_passcode: event.passcode },
      targets: user ? [user.uuid] : [],
      createdBy: 'change-password-with-one-time-passcode',
    });
  }

  @OnDomainEvent('user.created')
  async onUserCreated(event: DomainEventMap['user.created']): Promise<void> {
    if (event.sendNotify) {
      await this.enqueue({
        templateId: IDS.accountRegistration,
        userId: event.userId,
        labels: { username: event.username },
        targets: [event.uuid],
        createdBy: 'user-created',
      });
    }
    if (event.createdBy === null) return; // bootstrap and internal creations
    const user = await this.users.findById(event.userId);
    const initiator = await this.nameOf(event.createdBy);
    for (const adminId of await this.accountAdmins(event.userId)) {
      await this.enqueue({
        templateId: IDS.userAccountCreated,
        userId: adminId,
        labels: {
          created_account_name: event.username,
          created_account_user_name: user?.fullName ?? '',
          initiator,
        },
        targets: [event.uuid],
        createdBy: 'api-create-user',
      });
    }
  }

  @OnDomainEvent('user.status_changed')
  async onStatusChanged(event: DomainEventMap['user.status_changed']): Promise<void> {
    const suspended = event.to === 'suspended';
    const activated = event.from === 'suspended' && event.to === 'active';
    if (!suspended && !activated) return;
    const user = await this.users.findById(event.userId);
    if (!user) return;
    const initiator = await this.nameOf(event.actorId);
    const prefix = suspended ? 'suspended' : 'activated';
    const createdBy = `api-put-user-status/${suspended ? 'suspend' : 'activate'}`;
    for (const adminId of await this.accountAdmins(user.id)) {
      await this.enqueue({
        templateId: suspended ? IDS.userAccountSuspended : IDS.userAccountActivated,
        userId: adminId,
        labels: {
          [`${prefix}_account_name`]: user.name,
          [`${prefix}_account_user_name`]: user.fullName,
          initiator,
        },
        targets: [user.uuid],
        createdBy,
      });
    }
    await this.enqueue({
      templateId: suspended ? IDS.yourAccountSuspended : IDS.yourAccountActivated,
      userId: user.id,
      labels: { [`${prefix}_account_name`]: user.name, initiator },
      targets: [user.uuid],
      createdBy,
    });
  }

  @OnDomainEvent('user.deleted')
  async onUserDeleted(event: DomainEventMap['user.deleted']): Promise<void> {
    try {
      // Undelivered messages of a deleted user are dropped (a purged user's rows go by cascade).
      await this.messages.inhibitPendingOf(event.userId);
    } catch (error) {
      this.logger.warn({ err: error }, 'dropping messages of a deleted user failed');
    }
    await this.keepAccountCreatedRecipient(event.userId, event.actorId);
    const initiator = await this.nameOf(event.actorId);
    for (const adminId of await this.accountAdmins(event.userId)) {
      await this.enqueue({
        templateId: IDS.userAccountDeleted,
        userId: adminId,
        labels: { deleted_account_name: event.username, deleted_account_user_name: '', initiator },
        targets: [event.uuid],
        createdBy: 'api-delete-user',
      });
    }
  }

  /**
   * Gitea rule (spec 3, admin users): someone must still receive "User account created". When the
   * deleted user was the last administrator receiving it, it is enabled again for the actor.
   */
  private async keepAccountCreatedRecipient(deletedUserId: string, actorId: string | null): Promise<void> {
    if (!actorId) return;
    try {
      if (await this.messages.anyReceives(IDS.userAccountCreated, await this.accountAdmins(deletedUserId)))
        return;
      await this.preferences.enable(actorId, IDS.userAccountCreated);
    } catch (error) {
      this.logger.warn({ err: error }, 'keeping a recipient of "User account created" failed');
    }
  }

  @OnDomainEvent('workflow.notify_owner')
  async onWorkflowRule(event: DomainEventMap['workflow.notify_owner']): Promise<void> {
    const actor = event.actorUserId ? await this.nameOf(event.actorUserId) : '';
    await this.enqueue({
      templateId: IDS.workflowRuleMatched,
      userId: event.ownerUserId,
      labels: {
        rule_id: event.ruleId,
        rule_name: event.ruleName,
        inscription: event.message,
        entity: event.entity,
        event: event.event,
        subject: event.subject,
        actor,
      },
      data: { rule_id: event.ruleId },
      createdBy: 'workflow-engine',
    });
  }
}

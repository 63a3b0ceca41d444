import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_RUNTIME, type DatabaseRuntime } from '../../platform/database/database-runtime';
import { DispatchWaker } from './delivery/dispatch-waker';
import { NotificationDispatcher } from './delivery/notification-dispatcher.service';
import { NotificationEnqueuer } from './delivery/notification-enqueuer.service';
import { NotificationMessagesRepository } from './delivery/notification-messages.repository';
import { NOTIFICATIONS_ENTITIES } from './entities';
import { InboxWatchGateway } from './inbox/inbox-watch.gateway';
import { InboxRepository } from './inbox/inbox.repository';
import { InboxService } from './inbox/inbox.service';
import { NotificationListeners } from './notification-listeners.service';
import { NotificationPreferencesController } from './notification-preferences.controller';
import { NotificationPreferencesRepository } from './notification-preferences.repository';
import { NotificationPreferencesService } from './notification-preferences.service';
import { NotificationSettingsService } from './notification-settings.service';
import { NotificationTemplatesRepository } from './notification-templates.repository';
import { NotificationTemplatesService } from './notification-templates.service';
import './notifications.error-codes';
import { loadNotificationsConfig, NOTIFICATIONS_CONFIG } from './notifications.config';
import { NotificationsController } from './notifications.controller';

/**
 * Notifications (spec 2, table B): templates, the durable delivery queue (SMTP, webhook, inbox),
 * the inbox over REST and WebSocket, settings and preferences. Other modules enqueue by emitting
 * `notification.requested`; NotificationEnqueuer is exported for callers that need a transaction.
 */
@Module({
  imports: [TypeOrmModule.forFeature(NOTIFICATIONS_ENTITIES)],
  controllers: [NotificationsController, NotificationPreferencesController],
  providers: [
    {
      provide: NOTIFICATIONS_CONFIG,
      inject: [APP_CONFIG, DATABASE_RUNTIME],
      useFactory: (config: AppConfig, runtime: DatabaseRuntime) =>
        loadNotificationsConfig(config.env, { embedded: runtime.embedded }),
    },
    DispatchWaker,
    NotificationTemplatesRepository,
    NotificationPreferencesRepository,
    NotificationMessagesRepository,
    InboxRepository,
    NotificationTemplatesService,
    NotificationSettingsService,
    NotificationPreferencesService,
    NotificationEnqueuer,
    NotificationDispatcher,
    InboxService,
    InboxWatchGateway,
    NotificationListeners,
  ],
  exports: [NotificationEnqueuer],
})
export class NotificationsModule {}

import { type Provider } from '@nestjs/common';
import { APP_CONFIG } from '../../../platform/config/config.token';
import type { AppConfig } from '../../../platform/config/app-config';
import { GiteaOrgHooksController } from './gitea-org-hooks.controller';
import { GiteaRepoHooksController } from './gitea-repo-hooks.controller';
import { WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookEventsListener } from './webhook-events.listener';
import { WebhookPayloads } from './webhook-payloads.service';
import { loadWebhooksConfig, WEBHOOKS_CONFIG } from './webhooks.config';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Repository and organization webhooks (issue 49.5): what RepositoriesModule mounts. See README "Webhooks". */
export const WEBHOOK_CONTROLLERS = [GiteaRepoHooksController, GiteaOrgHooksController];
export const WEBHOOK_PROVIDERS: Provider[] = [
  WebhooksRepository,
  WebhooksService,
  WebhookPayloads,
  WebhookDeliveries,
  WebhookEventsListener,
  {
    provide: WEBHOOKS_CONFIG,
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => loadWebhooksConfig(config.env),
  },
];

import { Global, Module } from '@nestjs/common';
import { UploadPolicy } from '../../platform/uploads/upload-policy';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoginConfirmController } from './controllers/login-confirm.controller';
import { WorkflowCatalogueController } from './controllers/workflow-catalogue.controller';
import { WorkflowsController } from './controllers/workflows.controller';
import { RuleStore } from './engine/rule-store.service';
import { WorkflowEventReceiptsRepository } from './engine/workflow-event-receipts.repository';
import { WorkflowEngine } from './engine/workflow-engine.service';
import { WORKFLOWS_ENTITIES } from './entities';
import { WebhookDeliveries } from './operations/webhook-deliveries.service';
import { WebhookSender } from './operations/webhook-sender.service';
import { PasswordConfirmationGuard } from './password-confirmation.guard';
import { WorkflowAccessControlService } from './workflow-access-control.service';
import { WorkflowRulesRepository } from './workflow-rules.repository';
import { WorkflowRulesService } from './workflow-rules.service';
import './workflows.error-codes';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { loadWorkflowsConfig, WORKFLOWS_CONFIG } from './workflows.config';

/**
 * Workflow rules (spec 1): the OCS API, the rule matcher that runs rules on the platform's
 * subject events, and the operations (access control, notification, webhook). It implements the
 * platform's UploadPolicy port (global, so attachment and package modules inject it without
 * importing this module) with the access-control rules.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(WORKFLOWS_ENTITIES)],
  controllers: [WorkflowsController, WorkflowCatalogueController, LoginConfirmController],
  providers: [
    {
      provide: WORKFLOWS_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadWorkflowsConfig(config.env),
    },
    WorkflowRulesRepository,
    WorkflowEventReceiptsRepository,
    RuleStore,
    WorkflowRulesService,
    WorkflowEngine,
    WebhookSender,
    WebhookDeliveries,
    WorkflowAccessControlService,
    { provide: UploadPolicy, useExisting: WorkflowAccessControlService },
    PasswordConfirmationGuard,
  ],
  exports: [WorkflowAccessControlService, UploadPolicy],
})
export class WorkflowsModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoginConfirmController } from './controllers/login-confirm.controller';
import { WorkflowCatalogueController } from './controllers/workflow-catalogue.controller';
import { WorkflowsController } from './controllers/workflows.controller';
import { RuleStore } from './engine/rule-store.service';
import { WorkflowEngine } from './engine/workflow-engine.service';
import { WORKFLOWS_ENTITIES } from './entities';
import { WebhookDeliveries } from './operations/webhook-deliveries.service';
import { WebhookSender } from './operations/webhook-sender.service';
import { PasswordConfirmationGuard } from './password-confirmation.guard';
import { WorkflowAccessControlService } from './workflow-access-control.service';
import { WorkflowRulesService } from './workflow-rules.service';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { loadWorkflowsConfig, WORKFLOWS_CONFIG } from './workflows.config';

/**
 * Workflow rules (spec 1): the OCS API, the rule matcher that runs rules on the platform's
 * subject events, and the operations (access control, notification, webhook). Other modules call
 * the exported WorkflowAccessControlService before they accept or serve a file.
 */
@Module({
  imports: [TypeOrmModule.forFeature(WORKFLOWS_ENTITIES)],
  controllers: [WorkflowsController, WorkflowCatalogueController, LoginConfirmController],
  providers: [
    { provide: WORKFLOWS_CONFIG, inject: [APP_CONFIG], useFactory: (config: AppConfig) => loadWorkflowsConfig(config.env) },
    RuleStore,
    WorkflowRulesService,
    WorkflowEngine,
    WebhookSender,
    WebhookDeliveries,
    WorkflowAccessControlService,
    PasswordConfirmationGuard,
  ],
  exports: [WorkflowAccessControlService],
})
export class WorkflowsModule {}

import { WorkspaceFormReadsController } from './controllers/workspace-form-reads.controller';
import { DynamicParametersGateway } from './controllers/dynamic-parameters.gateway';
import { ProvisionerKeyDaemonsController } from './controllers/provisioner-key-daemons.controller';
import { DeploymentStatsRepository } from './repositories/deployment-stats.repository';
import { WorkspaceDeploymentReports } from './workspace-deployment-reports';
import { WorkspaceAccounts } from './workspace-accounts.service';
import { CoderWorkspacePresenter } from './controllers/coder-workspace-presenter.service';
import { WorkspaceWatches, WorkspaceWatchGateway } from './controllers/workspace-watch';
import { Global, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { WorkspaceAgentCalls } from '../../platform/ports/workspace-agent-calls';
import { WorkspaceLookup } from '../../platform/ports/workspace-lookup';
import { AgentCallsService } from './agent-calls.service';
import { AuthorizationService } from '../auth/authorization.service';
import { OwnedResourcesRegistry } from '../identity/owned-resources.registry';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { PROVISIONER_KEY_LOOKUP, WORKSPACE_AGENT_LOOKUP } from '../../api/access/principal-ports';
import { AgentDesktopGateway } from './controllers/agent-desktop.gateway';
import { AgentStreamsGateway } from './controllers/agent-streams.gateway';
import { WorkspacePtyGateway } from './controllers/workspace-pty.gateway';
import { AgentStreamsService } from './agent-streams.service';
import { WorkspaceAppsProxy } from './apps/workspace-apps.proxy';
import { AgentMetadataWatches, AgentMetadataWatchGateway } from './controllers/agent-metadata-watch';
import { BuildWatchGateway } from './controllers/build-watch.gateway';
import { BuildLogsGateway, VersionLogsGateway } from './controllers/job-logs.gateway';
import { ConnectionLogController } from './controllers/connection-log.controller';
import { ProvisionersController } from './controllers/provisioners.controller';
import { ExperimentalTasksController, TasksController } from './controllers/tasks.controller';
import { TemplatesController } from './controllers/templates.controller';
import { TemplateFilesController } from './controllers/template-files.controller';
import { TemplateFilesRepository } from './repositories/template-files.repository';
import { TemplateFilesService } from './template-files.service';
import { WorkspaceAgentsController } from './controllers/workspace-agents.controller';
import { WorkspacesController } from './controllers/workspaces.controller';
import { WORKSPACES_ENTITIES } from './entities';
import { PrebuildsService } from './prebuilds.service';
import { ProvisionerJobsService } from './provisioner-jobs.service';
import { ProvisionerKeysService } from './provisioner-keys.service';
import { TasksService } from './tasks.service';
import { WorkspaceAgentsService } from './workspace-agents.service';
import { WorkspaceSharingListener } from './workspace-sharing.listener';
import { WORKSPACES_CONFIG, loadWorkspacesConfig } from './workspaces.config';
import { WorkspacesService } from './workspaces.service';
// Repositories of workspaces.service.ts and tasks.service.ts (issue 32 item 1).
import { TemplatesRepository } from './repositories/templates.repository';
import { WorkspaceViewsRepository } from './repositories/workspace-views.repository';
import { WorkspacesRepository } from './repositories/workspaces.repository';
import { ConnectionLogSearchRepository } from './repositories/connection-log-search.repository';
import { ConnectionLogService } from './connection-log.service';
import './workspaces.error-codes';
// Repositories of the provisioner jobs, agents, agent calls, prebuilds and provisioner keys.
import { AgentCallsRepository } from './repositories/agent-calls.repository';
import { PrebuildsRepository } from './repositories/prebuilds.repository';
import { ProvisionerDaemonsRepository } from './repositories/provisioner-daemons.repository';
import { ProvisionerDaemonsService } from './provisioner-daemons.service';
import { ProvisionerJobsRepository } from './repositories/provisioner-jobs.repository';
import { ProvisionerKeysRepository } from './repositories/provisioner-keys.repository';
import { WorkspaceAgentsRepository } from './repositories/workspace-agents.repository';

/**
 * Workspaces (spec 2, table C): templates, builds and provisioner jobs, provisioner keys and the
 * daemon protocol, workspace agents, prebuilds and the reinit stream, tasks, the build watch and the
 * connection log. Global: it provides auth's WORKSPACE_AGENT_LOOKUP and PROVISIONER_KEY_LOOKUP ports.
 * See README.md.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(WORKSPACES_ENTITIES)],
  controllers: [
    // before TemplatesController: `templates/examples` is not `templates/{id}`
    TemplateFilesController,
    TemplatesController,
    WorkspacesController,
    ProvisionersController,
    WorkspaceAgentsController,
    TasksController,
    ExperimentalTasksController,
    ConnectionLogController,
    ProvisionerKeyDaemonsController,
    WorkspaceFormReadsController,
  ],
  providers: [
    // Repositories of the provisioner jobs, agents, agent calls, prebuilds and provisioner keys.
    AgentCallsRepository,
    PrebuildsRepository,
    ProvisionerJobsRepository,
    ProvisionerDaemonsRepository,
    ProvisionerKeysRepository,
    WorkspaceAgentsRepository,
    DeploymentStatsRepository,
    WorkspaceDeploymentReports,
    {
      provide: WORKSPACES_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadWorkspacesConfig(config.env),
    },
    // Repositories of workspaces.service.ts and tasks.service.ts.
    TemplatesRepository,
    TemplateFilesRepository,
    TemplateFilesService,
    WorkspacesRepository,
    WorkspaceViewsRepository,
    ConnectionLogSearchRepository,
    WorkspaceAccounts,
    CoderWorkspacePresenter,
    WorkspaceWatches,
    WorkspaceWatchGateway,
    ConnectionLogService,
    // Services.
    ProvisionerJobsService,
    ProvisionerDaemonsService,
    ProvisionerKeysService,
    WorkspacesService,
    WorkspaceAgentsService,
    PrebuildsService,
    TasksService,
    BuildWatchGateway,
    DynamicParametersGateway,
    BuildLogsGateway,
    VersionLogsGateway,
    AgentDesktopGateway,
    AgentStreamsService,
    WorkspaceAppsProxy,
    AgentStreamsGateway,
    WorkspacePtyGateway,
    AgentMetadataWatches,
    AgentMetadataWatchGateway,
    WorkspaceSharingListener,
    AgentCallsService,
    { provide: WorkspaceAgentCalls, useExisting: AgentCallsService },
    { provide: WORKSPACE_AGENT_LOOKUP, useExisting: WorkspaceAgentsService },
    { provide: PROVISIONER_KEY_LOOKUP, useExisting: ProvisionerKeysService },
    {
      provide: WorkspaceLookup,
      inject: [WorkspacesService],
      useFactory: (workspaces: WorkspacesService): WorkspaceLookup => ({
        find: (id) => workspaces.summaryOf(id),
      }),
    },
  ],
  exports: [
    WORKSPACE_AGENT_LOOKUP,
    PROVISIONER_KEY_LOOKUP,
    ProvisionerJobsService,
    WorkspaceLookup,
    WorkspaceAgentCalls,
  ],
})
export class WorkspacesModule implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly owned: OwnedResourcesRegistry,
    private readonly authz: AuthorizationService,
    private readonly workspaces: WorkspacesService,
    private readonly templates: TemplatesRepository,
  ) {}

  onModuleInit(): void {
    // A user who owns workspaces is not deleted (Coder: 417; Gitea's admin delete: 422 unless purged,
    // and a purge queues a delete build for each).
    this.owned.register({
      kind: 'workspaces',
      message: (userId) => `user still has ownership of workspaces [uid: ${userId}]`,
      count: (userId, manager) => this.workspaces.countOwnedBy(userId, manager),
      purge: (userId, tx) => this.workspaces.purgeOwnedBy(userId, tx),
    });
    // authcheck's `resource_id` for workspaces and templates.
    this.authz.registerObjectLoader('workspace', (id) => this.workspaces.rbacObjectOf(id));
    this.authz.registerObjectLoader('template', async (id) => {
      const row = await this.templates.rbacRow(id);
      // Coder's default template ACL: the organization's Everyone group (its id is the organization's) may use it.
      return row
        ? {
            type: 'template',
            id: row.id,
            orgId: row.organization_id,
            aclGroupList: { [row.organization_id]: ['read', 'use'] },
          }
        : null;
    });
  }

  onModuleDestroy(): void {
    this.owned.unregister('workspaces');
  }
}

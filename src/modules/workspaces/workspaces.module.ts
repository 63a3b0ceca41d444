import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { PROVISIONER_KEY_LOOKUP, WORKSPACE_AGENT_LOOKUP } from '../auth/principal-ports';
import { BuildWatchGateway } from './controllers/build-watch.gateway';
import { ConnectionLogController } from './controllers/connection-log.controller';
import { ProvisionersController } from './controllers/provisioners.controller';
import { ExperimentalTasksController, TasksController } from './controllers/tasks.controller';
import { TemplatesController } from './controllers/templates.controller';
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
    TemplatesController,
    WorkspacesController,
    ProvisionersController,
    WorkspaceAgentsController,
    TasksController,
    ExperimentalTasksController,
    ConnectionLogController,
  ],
  providers: [
    {
      provide: WORKSPACES_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadWorkspacesConfig(config.env),
    },
    ProvisionerJobsService,
    ProvisionerKeysService,
    WorkspacesService,
    WorkspaceAgentsService,
    PrebuildsService,
    TasksService,
    BuildWatchGateway,
    WorkspaceSharingListener,
    { provide: WORKSPACE_AGENT_LOOKUP, useExisting: WorkspaceAgentsService },
    { provide: PROVISIONER_KEY_LOOKUP, useExisting: ProvisionerKeysService },
  ],
  exports: [WORKSPACE_AGENT_LOOKUP, PROVISIONER_KEY_LOOKUP, ProvisionerJobsService],
})
export class WorkspacesModule {}

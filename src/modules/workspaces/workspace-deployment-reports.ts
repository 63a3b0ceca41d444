import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DeploymentReports } from '../../platform/site-config/deployment-reports';
import { OrganizationsService } from '../identity/organizations.service';
import { presentDaemon } from './provisioner-daemon.presenter';
import { daemonStatus, ProvisionerDaemonsService } from './provisioner-daemons.service';
import { DeploymentStatsRepository } from './repositories/deployment-stats.repository';

/**
 * What workspaces tell the deployment's describing routes (issue 48 item 3): the live provisioner
 * daemons of the default organization (the built-in ones serve every organization) for `/debug/health`,
 * workspaces by status for `/deployment/stats`.
 */
@Injectable()
export class WorkspaceDeploymentReports implements OnModuleInit {
  constructor(
    private readonly reports: DeploymentReports,
    private readonly daemons: ProvisionerDaemonsService,
    private readonly organizations: OrganizationsService,
    private readonly stats: DeploymentStatsRepository,
  ) {}

  onModuleInit(): void {
    this.reports.register('provisioner_daemons', async () => {
      const organization = await this.organizations.getDefault();
      if (!organization) return [];
      const uuid = organization.account.uuid;
      const now = Date.now();
      return (await this.daemons.ofOrganization(uuid, { ids: [], tags: undefined }))
        .filter((row) => daemonStatus(row, now) !== 'offline')
        .map((row) => presentDaemon(row, uuid, now));
    });
    this.reports.register('workspace_stats', () => this.stats.workspaceStatusCounts());
  }
}

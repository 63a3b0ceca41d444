import { ConnectionLog } from './connection-log.entity';
import { ProvisionerDaemonRecord } from './provisioner-daemon.entity';
import { ProvisionerJob } from './provisioner-job.entity';
import { ProvisionerJobLog } from './provisioner-job-log.entity';
import { ProvisionerKey } from './provisioner-key.entity';
import { Template } from './template.entity';
import { TemplateVersion } from './template-version.entity';
import { TemplateVersionPreset } from './template-version-preset.entity';
import { Workspace } from './workspace.entity';
import { WorkspaceAgent } from './workspace-agent.entity';
import { WorkspaceAgentCall } from './workspace-agent-call.entity';
import { WorkspaceBuild } from './workspace-build.entity';
import { WorkspaceResource } from './workspace-resource.entity';
import { WorkspaceOsIdentity } from './workspace-os-identity.entity';
import { TemplateAclEntry, TemplateFile, TemplateVersionFile } from './template-file.entity';

export const WORKSPACES_ENTITIES: Function[] = [
  Template,
  TemplateVersion,
  TemplateVersionPreset,
  Workspace,
  WorkspaceBuild,
  ProvisionerJob,
  ProvisionerJobLog,
  ProvisionerKey,
  ProvisionerDaemonRecord,
  WorkspaceResource,
  WorkspaceAgent,
  ConnectionLog,
  WorkspaceAgentCall,
  WorkspaceOsIdentity,
  TemplateFile,
  TemplateVersionFile,
  TemplateAclEntry,
];

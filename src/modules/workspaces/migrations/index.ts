import { Workspaces1795750043624 } from './1795750043624-Workspaces';
import { AgentCalls1795753956405 } from './1795753956405-AgentCalls';
import { TaskPrompt1795883060072 } from './1795883060072-TaskPrompt';
import { WorkspaceIsolation1795884540213 } from './1795884540213-WorkspaceIsolation';
import { ProvisionerDaemons1795935566955 } from './1795935566955-ProvisionerDaemons';
import { AgentMetadata1796678935990 } from './1796678935990-AgentMetadata';
import { TemplateFiles1796691234967 } from './1796691234967-TemplateFiles';

export const WORKSPACES_MIGRATIONS: Function[] = [
  Workspaces1795750043624,
  AgentCalls1795753956405,
  TaskPrompt1795883060072,
  WorkspaceIsolation1795884540213,
  ProvisionerDaemons1795935566955,
  AgentMetadata1796678935990,
  TemplateFiles1796691234967,
];

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export interface WorkspaceAppDefinition {
  id: string;
  slug: string;
  display_name: string;
  command?: string;
  url?: string;
  icon?: string;
  external?: boolean;
  hidden?: boolean;
  /** What the agent last reported: healthy, unhealthy (apps without a healthcheck: none). */
  health?: 'healthy' | 'unhealthy';
  /** Served on a subdomain of WILDCARD_ACCESS_URL (issue 50). */
  subdomain?: boolean;
  /** The app's sharing level and the template's widest allowed one (owner, authenticated, organization, public). */
  share?: string;
  max_share?: string;
  healthcheck?: { url: string; interval: number; threshold: number };
}

/** A metadata item the template declares and what its script last produced. */
export interface AgentMetadataItem {
  key: string;
  display_name: string;
  script: string;
  interval: number;
  timeout: number;
  value?: string;
  error?: string;
  collected_at?: string;
}

/** A workspace agent: authenticated by its token, reporting lifecycle, connection and apps. */
@Entity({ name: 'workspace_agents' })
export class WorkspaceAgent {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('workspace_agents_resource')
  @Column({ name: 'resource_id', type: 'uuid' })
  resourceId: string;

  @Index('workspace_agents_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ type: 'varchar', length: 64, default: 'main' })
  name: string;

  /** SHA-256 (hex) of the agent token (a uuid). */
  @Index('workspace_agents_token', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  /** The token sealed under SECRETS_KEY, for the provisioner that (re)starts the agent. */
  @Column({ name: 'sealed_token', type: 'text' })
  sealedToken: string;

  @Column({ type: 'varchar', length: 4096, default: '' })
  directory: string;

  @Column({ name: 'environment_variables', type: 'jsonb', default: () => "'{}'" })
  environmentVariables: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  apps: WorkspaceAppDefinition[];

  /** The template's metadata items and their latest results (issue 50.2). */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  metadata: AgentMetadataItem[];

  @Column({ name: 'startup_script', type: 'text', default: '' })
  startupScript: string;

  @Column({ name: 'vnc_command', type: 'text', default: '' })
  vncCommand: string;

  @Column({ name: 'lifecycle_state', type: 'varchar', length: 32, default: 'created' })
  lifecycleState: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  version: string;

  @Column({ name: 'operating_system', type: 'varchar', length: 32, default: '' })
  operatingSystem: string;

  @Column({ type: 'varchar', length: 32, default: '' })
  architecture: string;

  /** The owner the agent last initialized for (reinit after a claim). */
  @Column({ name: 'initialized_owner_id', type: 'uuid', nullable: true })
  initializedOwnerId: string | null;

  @Column({ name: 'first_connected_at', type: 'timestamptz', nullable: true })
  firstConnectedAt: Date | null;

  @Column({ name: 'last_connected_at', type: 'timestamptz', nullable: true })
  lastConnectedAt: Date | null;

  @Column({ name: 'disconnected_at', type: 'timestamptz', nullable: true })
  disconnectedAt: Date | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'ready_at', type: 'timestamptz', nullable: true })
  readyAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

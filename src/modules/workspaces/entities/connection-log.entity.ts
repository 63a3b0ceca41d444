import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One session a workspace agent served (ssh, app, port forward), as Coder's connection log. */
@Entity({ name: 'connection_logs' })
@Index('connection_logs_time', ['connectTime'])
@Index('connection_logs_agent_connection', ['agentId', 'connectionId'], { unique: true })
export class ConnectionLog {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'connect_time', type: 'timestamptz' })
  connectTime: Date;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'workspace_owner_id', type: 'uuid' })
  workspaceOwnerId: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'workspace_name', type: 'varchar', length: 64 })
  workspaceName: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ name: 'agent_name', type: 'varchar', length: 64 })
  agentName: string;

  /** ssh, vscode, jetbrains, reconnecting_pty, workspace_app, port_forwarding. */
  @Column({ type: 'varchar', length: 32 })
  type: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @Column({ name: 'connection_id', type: 'uuid' })
  connectionId: string;

  @Column({ name: 'slug_or_port', type: 'varchar', length: 128, nullable: true })
  slugOrPort: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true })
  userAgent: string | null;

  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId: string | null;

  @Column({ type: 'integer', nullable: true })
  code: number | null;

  @Column({ name: 'disconnect_time', type: 'timestamptz', nullable: true })
  disconnectTime: Date | null;

  @Column({ name: 'disconnect_reason', type: 'varchar', length: 512, nullable: true })
  disconnectReason: string | null;
}

import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A call into a workspace through its agent (a chat's tool): pending → taken → done (or expired). */
@Entity({ name: 'workspace_agent_calls' })
@Index('workspace_agent_calls_pending', ['agentId', 'createdAt'], { where: "status = 'pending'" })
export class WorkspaceAgentCall {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId: string;

  @Column({ type: 'varchar', length: 32 })
  tool: string;

  @Column({ type: 'jsonb' })
  arguments: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: 'pending' | 'taken' | 'done' | 'expired';

  @Column({ type: 'jsonb', nullable: true })
  result: { ok: boolean; output: string; exitCode?: number } | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}

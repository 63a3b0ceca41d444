import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The numeric OS identity (uid = gid) a workspace's processes run as under the built-in provisioner
 * (WORKSPACE_UID_RANGE): allocated on its first start build and kept, so restarts keep the same owner
 * of its files; unique so two workspaces never share one.
 */
@Entity({ name: 'workspace_os_identities' })
export class WorkspaceOsIdentity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ type: 'integer', unique: true })
  uid: number;
}

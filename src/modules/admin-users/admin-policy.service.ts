import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { AccountAdministration } from '../identity/account-administration.service';
import { AdminPolicy, type GrantGraph, type GrantNode } from './admin-policy';
import { AdminUsersRepository } from './admin-users.repository';

/** Reads the grant graph from the accounts (identity) and `admin_grant_tombstones`. */
export class DatabaseGrantGraph implements GrantGraph {
  constructor(
    private readonly manager: EntityManager,
    private readonly accounts: AccountAdministration,
    private readonly rows: AdminUsersRepository,
  ) {}

  async node(id: string): Promise<GrantNode | null> {
    const user = await this.accounts.grantNode(id, this.manager);
    if (user)
      return { isAdmin: user.type === 'individual' && user.isAdmin, adminGrantedBy: user.adminGrantedBy };
    const tombstone = await this.rows.findTombstone(id, this.manager);
    return tombstone ? { isAdmin: false, adminGrantedBy: tombstone.adminGrantedBy } : null;
  }

  countSuperAdmins(): Promise<number> {
    return this.accounts.countSuperAdmins(this.manager);
  }
}

/** The policy bound to SUPER_ADMIN_ENABLED / ADMIN_MANAGEMENT_POLICY and the database. */
@Injectable()
export class AdminPolicyService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountAdministration,
    private readonly rows: AdminUsersRepository,
  ) {}

  /** A policy reading through `manager` (pass the transaction's manager inside a transaction). */
  for(manager?: EntityManager): AdminPolicy {
    return new AdminPolicy(
      { superAdminEnabled: this.config.superAdminEnabled, policy: this.config.adminManagementPolicy },
      new DatabaseGrantGraph(manager ?? this.dataSource.manager, this.accounts, this.rows),
    );
  }
}

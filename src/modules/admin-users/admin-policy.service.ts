import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { User } from '../identity/entities/user.entity';
import { AdminPolicy, type GrantGraph, type GrantNode } from './admin-policy';
import { AdminGrantTombstone } from './entities/admin-grant-tombstone.entity';

/** Reads the grant graph from `users` and `admin_grant_tombstones`. */
export class DatabaseGrantGraph implements GrantGraph {
  constructor(private readonly manager: EntityManager) {}

  async node(id: string): Promise<GrantNode | null> {
    const user = await this.manager.getRepository(User).findOne({
      where: { id },
      select: { id: true, isAdmin: true, adminGrantedBy: true, type: true },
    });
    if (user)
      return { isAdmin: user.type === 'individual' && user.isAdmin, adminGrantedBy: user.adminGrantedBy };
    const tombstone = await this.manager.getRepository(AdminGrantTombstone).findOneBy({ userId: id });
    return tombstone ? { isAdmin: false, adminGrantedBy: tombstone.adminGrantedBy } : null;
  }

  countSuperAdmins(): Promise<number> {
    return this.manager.getRepository(User).countBy({ type: 'individual', isSuperAdmin: true });
  }
}

/** The policy bound to SUPER_ADMIN_ENABLED / ADMIN_MANAGEMENT_POLICY and the database. */
@Injectable()
export class AdminPolicyService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** A policy reading through `manager` (pass the transaction's manager inside a transaction). */
  for(manager?: EntityManager): AdminPolicy {
    return new AdminPolicy(
      { superAdminEnabled: this.config.superAdminEnabled, policy: this.config.adminManagementPolicy },
      new DatabaseGrantGraph(manager ?? this.dataSource.manager),
    );
  }
}

/**
 * The administrator management policy (spec 3, rules 1-4) as pure logic over a grant graph.
 * AdminPolicyService (admin-policy.service.ts) binds it to the configuration and the database;
 * admin-policy.spec.ts (beside this file) drives every branch through an in-memory graph.
 */

export type AdminManagementPolicy = 'grantor-inheritance' | 'grantor-only' | 'super-admins-only';

export interface PolicySettings {
  superAdminEnabled: boolean;
  policy: AdminManagementPolicy;
}

/** The fields of an account the policy reads. */
export interface PolicyUser {
  id: string;
  name: string;
  isAdmin: boolean;
  isSuperAdmin: boolean;
  adminGrantedBy: string | null;
  hasBootstrapGrant: boolean;
}

/** A node of the grant graph: a live account, or the tombstone of a deleted administrator. */
export interface GrantNode {
  /** True only for a live account that currently holds the admin flag. */
  isAdmin: boolean;
  adminGrantedBy: string | null;
}

export interface GrantGraph {
  node(id: string): Promise<GrantNode | null>;
  /** Number of super administrators (accounts with the flag; individuals only). */
  countSuperAdmins(): Promise<number>;
}

export type AdminFlagDecision = 'apply' | 'unchanged';

const MAX_GRANT_DEPTH = 64;

export class AdminPolicy {
  constructor(
    private readonly settings: PolicySettings,
    private readonly graph: GrantGraph,
  ) {}

  /** Rule 1: the flag counts only when the feature is on. */
  isSuper(user: PolicyUser): boolean {
    return this.settings.superAdminEnabled && user.isSuperAdmin;
  }

  /**
   * The first current administrator up the recorded grant chain of `target`, skipping demoted
   * and deleted administrators (their grantees are inherited upward); null when the chain ends.
   */
  async effectiveGrantor(target: PolicyUser): Promise<string | null> {
    const seen = new Set<string>([target.id]);
    let current = target.adminGrantedBy;
    for (let depth = 0; current !== null && depth < MAX_GRANT_DEPTH; depth++) {
      if (seen.has(current)) return null; // a cycle: nobody up there
      seen.add(current);
      const node = await this.graph.node(current);
      if (!node) return null;
      if (node.isAdmin) return current;
      current = node.adminGrantedBy;
    }
    return null;
  }

  /** Rule 2: may `caller` act on `target` (edit, delete, demote)? */
  async canManage(caller: PolicyUser, target: PolicyUser): Promise<boolean> {
    if (!target.isAdmin) return true; // R2.1
    if (target.id === caller.id) return true; // R2.2
    if (this.isSuper(caller)) return true; // R2.3
    if (!caller.isAdmin) return false; // R2.4
    switch (this.settings.policy) {
      case 'grantor-only':
        return target.adminGrantedBy === caller.id; // R2.5
      case 'grantor-inheritance':
        return (await this.effectiveGrantor(target)) === caller.id; // R2.6
      default:
        return false; // R2.7
    }
  }

  /** Rule 3: whether a requested Admin flag value is applied (never an error). */
  async decideAdminFlag(
    caller: PolicyUser,
    target: PolicyUser,
    requested: boolean,
  ): Promise<AdminFlagDecision> {
    if (!this.settings.superAdminEnabled) return 'apply'; // A2
    if (requested === target.isAdmin) return 'unchanged'; // A3
    if (this.isSuper(caller)) return 'apply'; // A4
    if (!caller.isAdmin) return 'unchanged'; // A5
    if (this.isSuper(target)) return 'unchanged'; // A6
    if (this.settings.policy === 'grantor-only' || this.settings.policy === 'grantor-inheritance') {
      if (requested) return 'apply'; // A7: any administrator may promote
      return (await this.canManage(caller, target)) ? 'apply' : 'unchanged'; // A8 / A9
    }
    return 'unchanged'; // A10
  }

  /** Rule 4: why EditUser must answer 403, or null. Only for another account. */
  async editRefusal(caller: PolicyUser, target: PolicyUser): Promise<string | null> {
    if (target.id === caller.id) return null;
    if (target.hasBootstrapGrant) return 'the bootstrap administrator can only be changed by itself'; // E1
    if (this.isSuper(target) && !this.isSuper(caller)) {
      return 'only a super administrator can change a super administrator'; // E2
    }
    if (target.isAdmin && !(await this.canManage(caller, target))) {
      return `administrator ${target.name} is outside your management chain`; // E3
    }
    return null;
  }

  /** The 403 checks of Delete, in the spec's order (after the organization check), or null. */
  async deleteRefusal(caller: PolicyUser, target: PolicyUser): Promise<string | null> {
    if (target.id === caller.id) return 'you cannot delete yourself'; // D2
    if (target.hasBootstrapGrant) return 'the bootstrap administrator cannot be deleted'; // D3
    if (target.isAdmin && !(await this.canManage(caller, target))) {
      return `administrator ${target.name} is outside your management chain`; // D4
    }
    if (caller.adminGrantedBy !== null && target.id === caller.adminGrantedBy) {
      return 'you cannot delete the administrator who granted your privileges'; // D5
    }
    if (this.isSuper(target)) {
      if ((await this.graph.countSuperAdmins()) <= 1)
        return `can not delete the last super administrator [uid: ${target.id}]`; // D6
      if (!this.isSuper(caller)) return 'only a super administrator can delete a super administrator'; // D7
    }
    return null;
  }
}

import type { WorkspaceSharingMode } from '../../identity/entities/organization.entity';
import { orgRole, siteRole, type Permission, type RolePermissions, type SiteRoleOptions } from './rbac-roles';
import { ALLOW_ALL, type AllowListEntry, expandScopes } from './rbac-scopes';

/** Who asks: user uuid, site roles, organization memberships (org uuid → roles), groups, key scope. */
export interface RbacSubjectInput {
  id: string;
  siteRoles: readonly string[];
  memberships: readonly { orgId: string; roles: readonly string[]; sharingMode: WorkspaceSharingMode }[];
  groups?: readonly string[];
  scopes: readonly string[];
  allowList?: readonly AllowListEntry[];
}

/** What is asked about (Coder `rbac.Object`). Empty strings mean "not set". */
export interface RbacObject {
  type: string;
  id?: string;
  owner?: string;
  orgOwner?: string;
  anyOrg?: boolean;
  aclUserList?: Readonly<Record<string, readonly string[]>>;
  aclGroupList?: Readonly<Record<string, readonly string[]>>;
}

/** Positive and negated `type:action` keys of one level. */
interface Level {
  pos: Set<string>;
  neg: Set<string>;
}

function newLevel(): Level {
  return { pos: new Set(), neg: new Set() };
}

function add(level: Level, permissions: readonly Permission[]): void {
  for (const permission of permissions) {
    (permission.negate ? level.neg : level.pos).add(`${permission.type}:${permission.action}`);
  }
}

/** -1 if a negated permission matches, +1 if a positive one does, 0 otherwise. */
function vote(level: Level | undefined, type: string, action: string): -1 | 0 | 1 {
  if (!level) return 0;
  const keys = [`${type}:${action}`, `${type}:*`, `*:${action}`, '*:*'];
  if (level.neg.size > 0 && keys.some((key) => level.neg.has(key))) return -1;
  return keys.some((key) => level.pos.has(key)) ? 1 : 0;
}

/** A subject compiled once per request: every check is then a handful of set lookups. */
export class CompiledSubject {
  readonly site = newLevel();
  readonly user = newLevel();
  readonly orgs = new Map<string, { org: Level; member: Level }>();
  readonly scope = newLevel();
  readonly allowList: readonly AllowListEntry[];
  readonly groups: readonly string[];
  /** Role names that were not recognised (ignored; reported for diagnostics). */
  readonly unknownRoles: string[] = [];

  constructor(
    readonly input: RbacSubjectInput,
    options: SiteRoleOptions,
  ) {
    for (const name of new Set(['member', ...input.siteRoles])) {
      const role = siteRole(name, options);
      if (role) this.addRole(role, undefined);
      else this.unknownRoles.push(name);
    }
    for (const membership of input.memberships) {
      for (const name of new Set(membership.roles)) {
        const role = orgRole(name, membership.sharingMode);
        if (role) this.addRole(role, membership.orgId);
        else this.unknownRoles.push(name);
      }
      if (!this.orgs.has(membership.orgId))
        this.orgs.set(membership.orgId, { org: newLevel(), member: newLevel() });
    }
    add(this.scope, expandScopes(input.scopes));
    this.allowList = input.allowList && input.allowList.length > 0 ? input.allowList : [ALLOW_ALL];
    this.groups = input.groups ?? [];
  }

  private addRole(role: RolePermissions, orgId: string | undefined): void {
    add(this.site, role.site);
    add(this.user, role.user);
    if (orgId === undefined) return;
    let levels = this.orgs.get(orgId);
    if (!levels) {
      levels = { org: newLevel(), member: newLevel() };
      this.orgs.set(orgId, levels);
    }
    add(levels.org, role.org);
    add(levels.member, role.member);
  }

  get id(): string {
    return this.input.id;
  }

  /** Coder's `policy.rego` decision: (role_allow || acl_allow) && scope_allow. */
  authorize(action: string, object: RbacObject): boolean {
    return (
      (this.roleAllows(action, object) || this.aclAllows(action, object)) && this.scopeAllows(action, object)
    );
  }

  private levelOrg(key: 'org' | 'member', object: RbacObject, action: string): number {
    if (!object.anyOrg) {
      const levels = object.orgOwner ? this.orgs.get(object.orgOwner) : undefined;
      return levels ? vote(levels[key], object.type, action) : 0;
    }
    if (this.orgs.size === 0) return 0;
    let best = -1;
    for (const levels of this.orgs.values()) best = Math.max(best, vote(levels[key], object.type, action));
    return best;
  }

  private roleAllows(action: string, object: RbacObject): boolean {
    const site = vote(this.site, object.type, action);
    if (site === 1) return true;
    if (site === -1) return false;
    const owned = !!object.owner && object.owner === this.id;
    if (owned && !object.orgOwner && !object.anyOrg && vote(this.user, object.type, action) === 1)
      return true;
    const org = this.levelOrg('org', object, action);
    if (org === 1) return true;
    if (org === -1) return false;
    return owned && this.levelOrg('member', object, action) === 1;
  }

  private isOrgMember(object: RbacObject): boolean {
    if (object.anyOrg) return this.orgs.size > 0;
    return !!object.orgOwner && this.orgs.has(object.orgOwner);
  }

  private aclAllows(action: string, object: RbacObject): boolean {
    if (!object.aclUserList && !object.aclGroupList) return false;
    if (!this.isOrgMember(object)) return false;
    const grants = (actions: readonly string[] | undefined): boolean =>
      !!actions && (actions.includes(action) || actions.includes('*'));
    if (grants(object.aclUserList?.[this.id])) return true;
    if (this.groups.some((group) => grants(object.aclGroupList?.[group]))) return true;
    return !!object.orgOwner && grants(object.aclGroupList?.[object.orgOwner]);
  }

  private scopeAllows(action: string, object: RbacObject): boolean {
    const listed = this.allowList.some(
      (entry) =>
        (entry.type === '*' || entry.type === object.type) &&
        (entry.id === '*' || (!!object.id && entry.id === object.id)),
    );
    // Scopes are site-level only, so the four-level formula reduces to the site vote.
    return listed && vote(this.scope, object.type, action) === 1;
  }
}

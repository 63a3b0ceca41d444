import { Inject, Injectable } from '@nestjs/common';
import type { AccessPolicy, AuthzObject, RoleRef, RolePermissionSets } from '../../api/access/access-policy';
import { VersionedCache } from '../../platform/cache/versioned-cache';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import { coderSiteRoles } from '../identity/presenters/coder-user.presenter';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { UsersService } from '../identity/users.service';
import { AuthRepository } from './auth.repository';
import { AUTH_CONFIG, type AuthConfig } from './auth.config';
import type { Principal } from '../../api/access/principal';
import { CompiledSubject, type RbacObject } from './rbac/rbac-evaluator';
import { DEFAULT_ORG_MEMBER_ROLES, orgRole, siteRole } from './rbac/rbac-roles';
import { resourceActions } from './rbac/rbac-catalogue';

export type { AuthzObject };

export interface AuthcheckCheck {
  action: string;
  object: {
    resource_type: string;
    owner_id: string;
    organization_id: string;
    resource_id: string;
    any_org: boolean;
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RESOURCE_ID_TYPES = new Set(['workspace', 'template', 'user', 'group']);
const MAX_RESOURCE_ID_CHECKS = 10;

/** google/uuid's parse errors, for `resource_id`. */
function uuidProblem(value: string): string | null {
  const braced = value.length === 38 && value.startsWith('{') && value.endsWith('}');
  const urn = value.length === 45 && value.toLowerCase().startsWith('urn:uuid:');
  const core = braced ? value.slice(1, -1) : urn ? value.slice(9) : value;
  if (![36, 32].includes(core.length) && !braced && !urn) return `invalid UUID length: ${value.length}`;
  if (core.length === 36 ? UUID.test(core) : /^[0-9a-f]{32}$/i.test(core)) return null;
  return 'invalid UUID format';
}

/**
 * The platform's policy engine (Coder's RBAC, reference A.3): roles from `users.site_roles`
 * (+ `owner` for `is_admin`) and organization memberships, narrowed by the API key's scopes and
 * allow-list. Other modules call `authorize` / `require`; see src/modules/auth/README.md.
 */
@Injectable()
export class AuthorizationService implements AccessPolicy {
  private readonly compiled = new WeakMap<Principal, Promise<CompiledSubject>>();
  private readonly orgAliases = new WeakMap<CompiledSubject, Map<string, string>>();

  constructor(
    private readonly directory: IdentityDirectory,
    private readonly authRows: AuthRepository,
    private readonly users: UsersService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Inject(APP_CONFIG) appConfig: AppConfig,
  ) {
    this.compiledSubjects = new VersionedCache({
      tables: ['api_tokens', 'auth_token_allow_lists', 'organization_members', 'organizations', 'users'],
      ttlMs: appConfig.identityCacheSeconds * 1000,
    });
  }

  /**
   * Compiled subjects per user, key and scopes, until one of the tables they come from changes
   * (a CompiledSubject is immutable once built, so requests share it).
   */
  private readonly compiledSubjects: VersionedCache<string, CompiledSubject>;

  /** The caller's roles and scopes, compiled once per request (per Principal object). */
  subject(principal: Principal): Promise<CompiledSubject> {
    let subject = this.compiled.get(principal);
    if (!subject) {
      subject = this.compile(principal);
      this.compiled.set(principal, subject);
      subject.catch(() => this.compiled.delete(principal));
    }
    return subject;
  }

  private compile(principal: Principal): Promise<CompiledSubject> {
    const { user, token } = principal;
    const scopes = token ? token.scopes : principal.scopes;
    // The key holds every field of the principal the subject is built from, so a principal read
    // before a change can never be filed under the versions after it.
    const key = [
      user.id,
      user.uuid,
      coderSiteRoles(user).join(','),
      user.isServiceAccount,
      token?.id ?? '',
      scopes.join(' '),
    ].join('|');
    return this.compiledSubjects.get(key, () => this.compileUncached(principal));
  }

  private async compileUncached(principal: Principal): Promise<CompiledSubject> {
    // The memberships with their organizations (identity) and the key's allow-list (if any), side by side.
    const tokenId = principal.token && principal.token.loginType === 'token' ? principal.token.id : '';
    const [rows, storedAllowList] = await Promise.all([
      this.directory.subjectMemberships(principal.user.id),
      this.authRows.allowListEntries(tokenId),
    ]);
    const allowList = storedAllowList ?? undefined;
    const memberRole = principal.user.isServiceAccount
      ? 'organization-service-account'
      : 'organization-member';
    const subject = new CompiledSubject(
      {
        id: principal.user.uuid,
        siteRoles: coderSiteRoles(principal.user),
        memberships: rows.map((row) => ({
          orgId: row.org_uuid,
          sharingMode: row.sharing_mode,
          roles: [memberRole, ...DEFAULT_ORG_MEMBER_ROLES, ...(row.roles ?? [])],
        })),
        scopes: principal.token ? principal.token.scopes : principal.scopes,
        allowList,
      },
      { ownerWorkspaceExec: this.config.ownerWorkspaceExec },
    );
    this.orgAliases.set(subject, new Map(rows.map((row) => [String(row.org_id), row.org_uuid])));
    return subject;
  }

  /** Accepts numeric ids too: the caller's numeric id and its organizations' numeric ids map to their uuids. */
  private rbacObject(principal: Principal, subject: CompiledSubject, object: AuthzObject): RbacObject {
    const rbac = toRbac(object);
    if (rbac.owner && rbac.owner === principal.user.id) rbac.owner = principal.user.uuid;
    if (rbac.orgOwner) rbac.orgOwner = this.orgAliases.get(subject)?.get(rbac.orgOwner) ?? rbac.orgOwner;
    return rbac;
  }

  /** Whether the caller may do `action` on `object` (roles, then the key's scopes on top). */
  async authorize(principal: Principal, action: string, object: AuthzObject): Promise<boolean> {
    const subject = await this.subject(principal);
    return subject.authorize(action, this.rbacObject(principal, subject, object));
  }

  /** Throws Coder's standard 403 (or 404 with `notFound`, for lookups) when not allowed. */
  async require(
    principal: Principal,
    action: string,
    object: AuthzObject,
    options: { notFound?: boolean } = {},
  ): Promise<void> {
    if (await this.authorize(principal, action, object)) return;
    if (options.notFound)
      throw new NotFoundError('Resource not found or you do not have access to this resource');
    throw new ForbiddenError();
  }

  /**
   * A built-in role's permissions (the roles lists show them), or undefined for an unknown role. As
   * Coder lists them: `type:*` is each action of the resource (policy.RBACPermissions); `*:*` stays.
   */
  rolePermissions(role: RoleRef): RolePermissionSets | undefined {
    const sets =
      'site' in role
        ? siteRole(role.site, { ownerWorkspaceExec: this.config.ownerWorkspaceExec })
        : orgRole(role.organizationRole, role.sharingMode);
    if (!sets) return undefined;
    const expand = (list: RolePermissionSets['site']) =>
      list.flatMap((permission) =>
        permission.action === '*' && permission.type !== '*'
          ? (resourceActions(permission.type) ?? ['*']).map((action) => ({ ...permission, action }))
          : [permission],
      );
    return {
      site: expand(sets.site),
      org: expand(sets.org),
      user: expand(sets.user),
      member: expand(sets.member),
    };
  }

  /** Keeps the rows the caller may `action`. */
  async filter<T>(
    principal: Principal,
    action: string,
    rows: T[],
    objectOf: (row: T) => AuthzObject,
  ): Promise<T[]> {
    const subject = await this.subject(principal);
    return rows.filter((row) =>
      subject.authorize(action, this.rbacObject(principal, subject, objectOf(row))),
    );
  }

  /** The RBAC object of a user account (Coder `user.RBACObject()`). */
  static userObject(user: User): AuthzObject {
    return { type: 'user', id: user.uuid, ownerId: user.uuid };
  }

  /** `POST /api/v2/authcheck` (reference A.2), checks answered in request order. */
  async authcheck(
    principal: Principal,
    checks: [string, AuthcheckCheck][],
  ): Promise<Record<string, boolean>> {
    const withId = checks.filter(([, check]) => check.object.resource_id !== '').length;
    if (withId > MAX_RESOURCE_ID_CHECKS) {
      throw new BadRequestError(
        `Endpoint only supports using "resource_id" field ${MAX_RESOURCE_ID_CHECKS} times, found ${withId} usages. Remove ${withId - MAX_RESOURCE_ID_CHECKS} objects with this field set.`,
      );
    }
    const subject = await this.subject(principal);
    const answers: Record<string, boolean> = {};
    for (const [key, check] of checks) {
      const { object } = check;
      if (object.resource_type === '') {
        throw new BadRequestError(
          `Object's "resource_type" field must be defined for key ${JSON.stringify(key)}.`,
        );
      }
      let rbac: RbacObject = {
        type: object.resource_type,
        owner: object.owner_id === 'me' ? principal.user.uuid : object.owner_id,
        orgOwner: object.organization_id,
        anyOrg: object.any_org,
      };
      if (object.resource_id !== '') {
        const problem = uuidProblem(object.resource_id);
        if (problem) {
          throw new BadRequestError(`Object ${JSON.stringify(object.resource_id)} id is not a valid uuid.`, {
            fields: [{ field: 'resource_id', detail: problem }],
          });
        }
        if (!RESOURCE_ID_TYPES.has(object.resource_type)) {
          const text = `Object type ${JSON.stringify(object.resource_type)} does not support "resource_id" field.`;
          throw new BadRequestError(text, { fields: [{ field: 'resource_type', detail: text }] });
        }
        const row = await this.loadRow(subject, object.resource_type, object.resource_id);
        if (!row) {
          answers[key] = false;
          continue;
        }
        rbac = row;
      }
      answers[key] = subject.authorize(check.action, rbac);
    }
    return answers;
  }

  private readonly objectLoaders = new Map<string, (id: string) => Promise<AuthzObject | null>>();

  /**
   * Lets the module that owns a resource type answer authcheck's `resource_id` for it (workspaces
   * and templates: the workspaces module registers at start).
   */
  registerObjectLoader(type: string, loader: (id: string) => Promise<AuthzObject | null>): void {
    this.objectLoaders.set(type, loader);
  }

  /** The RBAC object of a stored row, if it exists and the caller may read it. */
  private async loadRow(subject: CompiledSubject, type: string, id: string): Promise<RbacObject | null> {
    const loader = this.objectLoaders.get(type);
    if (loader) {
      const found = await loader(id.toLowerCase());
      if (!found) return null;
      const object = toRbac(found);
      return subject.authorize('read', object) ? object : null;
    }
    if (type !== 'user') return null; // groups: not loaded by id
    const user = await this.users.findByUuid(id);
    if (!user) return null;
    const object = toRbac(AuthorizationService.userObject(user));
    return subject.authorize('read', object) ? object : null;
  }
}

export function toRbac(object: AuthzObject): RbacObject {
  return {
    type: object.type,
    id: object.id ?? '',
    owner: object.ownerId ?? '',
    orgOwner: object.orgId ?? '',
    anyOrg: object.anyOrg ?? false,
    aclUserList: object.aclUserList,
    aclGroupList: object.aclGroupList,
  };
}

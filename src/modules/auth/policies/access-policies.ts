import type { Type } from '@nestjs/common';
import type { ModuleRef, Reflector } from '@nestjs/core';
import {
  RESOURCE_ASSIGNMENT,
  admittedKinds,
  type ResourceAssigner,
} from '../../../api/access/access.decorators';
import { type AnyPrincipal, setRequestPrincipal, type UserPrincipal } from '../../../api/access/principal';
import { ForbiddenError, UnauthenticatedError } from '../../../platform/errors/domain-error';
import { type RequestCaller, setRequestCaller } from '../../../platform/http/request-caller';
import type { AuthorizationService } from '../authorization.service';
import type { CredentialResolver } from '../credential-resolver.service';
import { keyGrants, missingGiteaScope } from '../token-scopes';
import type { AccessCheck, AccessPolicy, Verdict } from './access-policy';

/** The caller facts the dialects read (`platform/http/request-caller.ts`). */
export function callerFacts(principal: AnyPrincipal): RequestCaller {
  if (principal.kind !== 'user') {
    return { kind: principal.kind, isAdmin: false, mustChangePassword: false, source: principal.source };
  }
  return {
    kind: 'user',
    userId: principal.user.id,
    isAdmin: principal.user.isAdmin,
    mustChangePassword: principal.user.mustChangePassword,
    source: principal.source,
  };
}

/** The user the later policies check (principalKinds and userRights let only users through). */
function userOf(request: AccessCheck): UserPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'user') throw new UnauthenticatedError('missing');
  return principal;
}

/** 403 with Gitea's text when the key lacks one of the categories (read for GET/HEAD, write otherwise). */
function requireGiteaScopes(principal: UserPrincipal, scopes: string[], method: string): void {
  const problem = missingGiteaScope(principal, scopes, method);
  if (problem) throw new ForbiddenError(problem, 'scope');
}

/**
 * 1. Credentials: the Passport strategy of the form presented (CredentialResolver). Bad credentials on
 * a public route: Gitea refuses, the other dialects go on anonymously (still through the route's resource
 * assignment: git then challenges for a private repository). Sets the principal and the caller facts.
 */
export function credentialsPolicy(credentials: CredentialResolver): AccessPolicy {
  return {
    name: 'credentials',
    async check(request): Promise<Verdict> {
      let principal: AnyPrincipal | undefined;
      try {
        principal = await credentials.resolveAny(request.req, request.res);
      } catch (error) {
        if (request.access.kind !== 'public' || request.dialect === 'gitea') throw error;
        principal = undefined;
      }
      if (principal) {
        const caller = callerFacts(principal);
        setRequestPrincipal(request.req, principal);
        setRequestCaller(request.req, caller);
        request.ruleContext.caller = caller;
      }
      request.principal = principal;
      return 'next';
    },
  };
}

/**
 * 2 and 6. The dialect's caller rules of one stage: `identified` (Gitea's must-change-password, public
 * routes too) right after the credentials, `authenticated` (Coder's cookie CSRF) once a caller is required.
 */
export function callerRulesPolicy(stage: 'identified' | 'authenticated'): AccessPolicy {
  return {
    name: `caller rules (${stage})`,
    check(request) {
      for (const rule of request.rules) if (rule.stage === stage) rule.check(request.ruleContext);
      return 'next';
    },
  };
}

/**
 * 3. Resource assignment (Gitea's `repoAssignment()`), before login and token requirements. Gitea checks
 * the route group's token scope first: a key without it is 403 whatever the repository (anonymous callers
 * carry no key, so their 404 still comes first).
 */
export function resourceAssignmentPolicy(reflector: Reflector, moduleRef: ModuleRef): AccessPolicy {
  return {
    name: 'resource assignment',
    async check(request): Promise<Verdict> {
      const { access, context, principal } = request;
      const assigner = reflector.getAllAndOverride<Type<ResourceAssigner> | undefined>(RESOURCE_ASSIGNMENT, [
        context.getHandler(),
        context.getClass(),
      ]);
      if (!assigner) return 'next';
      if (
        access.kind === 'authenticated' &&
        principal?.kind === 'user' &&
        access.scopes?.length &&
        !access.tokenScope
      )
        requireGiteaScopes(principal, access.scopes, request.req.method);
      await moduleRef.get(assigner, { strict: false }).assign(context, principal, access);
      return 'next';
    },
  };
}

/** 4. Public routes end here; protocol routes still need their declared scopes from a key. */
export const publicRoutePolicy: AccessPolicy = {
  name: 'public route',
  check({ access, principal, req }) {
    if (access.kind !== 'public') return 'next';
    if (principal?.kind === 'user' && access.scopes?.length && access.scopeCheck !== 'resource')
      requireGiteaScopes(principal, access.scopes, req.method);
    return 'allow';
  },
};

/** 5. A caller is required (401), of a kind the route admits (401: users only unless declared). */
export const principalKindsPolicy: AccessPolicy = {
  name: 'principal kinds',
  check({ access, principal }) {
    if (!principal) throw new UnauthenticatedError('missing');
    if (!admittedKinds(access).includes(principal.kind)) {
      throw new UnauthenticatedError('missing', undefined, {
        detail: `This route does not accept ${principal.kind} credentials.`,
      });
    }
    return 'next';
  },
};

/**
 * 7. Agents and provisioners carry no user rights and no token scopes: they pass here, except on
 * administrator and site-wide RBAC routes (403).
 */
export const userRightsPolicy: AccessPolicy = {
  name: 'user rights',
  check({ access, principal }) {
    if (principal?.kind === 'user') return 'next';
    if (access.kind === 'authenticated' && (access.admin || access.rbac)) throw new ForbiddenError();
    return 'allow';
  },
};

/**
 * 8. Token scopes: either vocabulary the route declares may grant access (Gitea categories by method,
 * or a Coder resource/action through the key's expanded scopes). Coder answers its generic 403; the
 * other dialects name the scope.
 */
export const tokenScopesPolicy: AccessPolicy = {
  name: 'token scopes',
  check(request) {
    const { access, dialect, req } = request;
    if (access.kind !== 'authenticated') return 'next';
    const principal = userOf(request);
    const giteaScopes = access.scopes && access.scopes.length > 0 ? access.scopes : undefined;
    if (!giteaScopes && !access.tokenScope) return 'next';
    const problem = giteaScopes ? missingGiteaScope(principal, giteaScopes, req.method) : null;
    const giteaOk = giteaScopes !== undefined && problem === null;
    const coderOk = access.tokenScope !== undefined && keyGrants(principal, access.tokenScope);
    if (giteaOk || coderOk) return 'next';
    throw new ForbiddenError(problem ?? undefined, 'scope', {
      detail:
        access.tokenScope && dialect !== 'coder'
          ? `API key scopes do not allow ${access.tokenScope.action} on ${access.tokenScope.type}.`
          : undefined,
    });
  },
};

/**
 * 9. Administrator routes: a site administrator, and without the route's own scope list the `admin`
 * scope category (a narrowly scoped token of an administrator cannot use them).
 */
export const administratorPolicy: AccessPolicy = {
  name: 'administrator',
  check(request) {
    const { access, req } = request;
    if (access.kind !== 'authenticated' || !access.admin) return 'next';
    const principal = userOf(request);
    if (!principal.user.isAdmin) throw new ForbiddenError('Administrator required.', 'admin_required');
    if (!access.scopes) requireGiteaScopes(principal, ['admin'], req.method);
    return 'next';
  },
};

/** 10. Site-wide Coder RBAC (roles and key scopes): 403 `Forbidden.` when not granted. */
export function rbacPolicy(authz: AuthorizationService): AccessPolicy {
  return {
    name: 'rbac',
    check(request) {
      const { access } = request;
      if (access.kind !== 'authenticated' || !access.rbac) return 'allow';
      return authz
        .require(userOf(request), access.rbac.action, { type: access.rbac.type })
        .then(() => 'allow' as const);
    },
  };
}

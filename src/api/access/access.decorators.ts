import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  type AnyPrincipal,
  type PrincipalKind,
  requestAnyPrincipal,
  requestPrincipal,
  type UserPrincipal,
} from './principal';

export const ACCESS_METADATA = 'devplane:access';

export interface AuthenticatedOptions {
  /**
   * Which kinds of caller may call the route (default `['user']`): workspace agents (agent token)
   * and provisioner daemons (provisioner key) only where a route admits them. Another kind is 401.
   */
  principals?: PrincipalKind[];
  /** Site administrators only (Gitea site admin, Coder owner). */
  admin?: boolean;
  /** Gitea token scope categories (`admin`, `user`, `repository`, ...): read for GET/HEAD, write otherwise. */
  scopes?: string[];
  /**
   * Coder: the API key's scopes must grant `action` on resource `type` (rbac-scopes.ts expansion);
   * roles are not consulted (object-level checks stay in services). A token passes when it satisfies
   * either vocabulary the route declares (`scopes` or `tokenScope`).
   */
  tokenScope?: { type: string; action: string };
  /**
   * Any API key may call the route, whatever its scopes: introspection whose answer itself applies
   * the key's scopes (Coder's authcheck). An explicit declaration, so the route audit can tell it
   * from a route that forgot its scope.
   */
  anyTokenScope?: true;
  /** Gitea: reachable while the user must change the password. */
  allowMustChangePassword?: boolean;
  /**
   * Coder RBAC: the caller must hold `action` on a site-wide object of `type` (roles and the key's
   * scopes, AuthorizationService), else 403 `Forbidden.`. Object-level checks (owner, organization)
   * belong in the service: `AuthorizationService.require(principal, action, object)`.
   */
  rbac?: { type: string; action: string };
}

export interface PublicOptions {
  /**
   * Protocol routes (git smart HTTP, the package registries) admit anonymous callers but a caller
   * with an API key still needs these Gitea scope categories, as Gitea's githttp and
   * `reqPackageAccess` require them: `read:<c>` (or write) for GET/HEAD, `write:<c>` otherwise.
   * Coder-dialect keys pass only with `coder:all` / `all` (no Coder resource covers repositories
   * or packages). The route audit requires this declaration on every protocol route.
   */
  scopes?: string[];
  /**
   * Who applies `scopes`: the AuthGuard by HTTP method whenever a key is used (`always`, the
   * default), or the route's resource assignment (`resource`: repositories' @RepoAccess, which
   * knows whether a request reads or writes and whether the repository is private).
   */
  scopeCheck?: 'always' | 'resource';
  /**
   * A protocol route that needs no key scope at all (e.g. npm's legacy login, which takes a
   * password): an explicit declaration, so the route audit can tell it from one that forgot.
   */
  anyTokenScope?: true;
}

export type AccessDeclaration =
  ({ kind: 'public' } & PublicOptions) | ({ kind: 'authenticated' } & AuthenticatedOptions);

/**
 * A route's resource assignment (Gitea's `repoAssignment()`): resolves the resource the path names
 * and the caller's right on it after credentials are known and BEFORE login and token requirements,
 * so an invisible resource is 404 even for anonymous callers. Implementations live in the module
 * that owns the resource (repositories' RepoAssignment) and are declared with
 * `SetMetadata(RESOURCE_ASSIGNMENT, TheClass)`; the AuthGuard resolves the class from the module
 * graph and calls it.
 */
export const RESOURCE_ASSIGNMENT = 'devplane:resource-assignment';

export interface ResourceAssigner {
  assign(
    context: ExecutionContext,
    principal: AnyPrincipal | undefined,
    access: AccessDeclaration,
  ): Promise<void>;
}

/** The route's OpenAPI security: any one of the four credential schemes (what @Authenticated documents). */
export function DocumentCredentials(): MethodDecorator & ClassDecorator {
  return documentSecurity();
}

function documentSecurity(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiSecurity('session-token'),
    ApiBearerAuth('bearer'),
    ApiSecurity('gitea-token'),
    ApiBasicAuth('basic'),
  );
}

/**
 * Anyone may call the route; credentials, if presented, are still resolved. Protocol routes
 * declare the token scopes a key needs (`{ scopes: ['repository'] }`, see PublicOptions).
 */
export function Public(options: PublicOptions = {}): MethodDecorator & ClassDecorator {
  return SetMetadata(ACCESS_METADATA, { kind: 'public', ...options } satisfies AccessDeclaration);
}

/** A signed-in caller, with optional extra requirements. */
export function Authenticated(options: AuthenticatedOptions = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ACCESS_METADATA, { kind: 'authenticated', ...options } satisfies AccessDeclaration),
    documentSecurity(),
  );
}

/**
 * The resolved user (undefined on a public route called anonymously, and for agents and
 * provisioners): what every user route takes.
 */
const principalParam = (_data: unknown, context: ExecutionContext): UserPrincipal | undefined =>
  requestPrincipal(context.switchToHttp().getRequest<Request>());
export const CurrentPrincipal = createParamDecorator(principalParam);

/** The resolved caller of any kind (routes with `principals` beyond users). */
const callerParam = (_data: unknown, context: ExecutionContext): AnyPrincipal | undefined =>
  requestAnyPrincipal(context.switchToHttp().getRequest<Request>());
export const CurrentCaller = createParamDecorator(callerParam);

/**
 * The factories of CurrentPrincipal and CurrentCaller: a public route with such a parameter reads its
 * caller, so credentials change its answer (the OpenAPI document marks its authentication optional).
 */
export const CALLER_PARAM_FACTORIES: ReadonlySet<unknown> = new Set([principalParam, callerParam]);

/** The security requirements of a route that needs credentials: any one of the four schemes. */
export const SECURITY_SCHEMES = ['session-token', 'bearer', 'gitea-token', 'basic'] as const;

/** The kinds a declaration admits. */
export function admittedKinds(access: AccessDeclaration): readonly PrincipalKind[] {
  return access.kind === 'authenticated' && access.principals && access.principals.length > 0
    ? access.principals
    : ['user'];
}

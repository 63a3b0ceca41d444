import { type CanActivate, type ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { routeDialect, setRequestDialect } from '../../api/dialect';
import { ForbiddenError, UnauthenticatedError } from '../../platform/errors/domain-error';
import {
  CALLER_RULES,
  type CallerRule,
  type CallerRuleContext,
  type RequestCaller,
  setRequestCaller,
} from '../../platform/http/request-caller';
import {
  ACCESS_METADATA,
  type AccessDeclaration,
  admittedKinds,
  RESOURCE_ASSIGNMENT,
  type ResourceAssigner,
} from '../../api/access/access.decorators';
import { AuthorizationService } from './authorization.service';
import { CredentialResolver } from './credential-resolver.service';
import { type AnyPrincipal, requestAnyPrincipal, setRequestPrincipal } from '../../api/access/principal';
import { upgradeRequest } from './upgrade-request';
import { keyGrants, missingGiteaScope } from './token-scopes';

function callerFacts(principal: AnyPrincipal): RequestCaller {
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

/**
 * Deny by default: every HTTP route must declare @Public() or @Authenticated(...). A route that
 * declares nothing is refused here, and test/platform/routes-declare-access.e2e-spec.ts fails on it.
 *
 * Order: credentials (the Passport strategies, CredentialResolver) → the dialect's `identified`
 * caller rules (Gitea: must change password) → public routes end here → a caller of an admitted
 * kind → the dialect's `authenticated` rules (Coder: cookie CSRF) → token scopes (either declared
 * vocabulary) → administrator → site-wide RBAC. The dialect comes from route metadata, never the path.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialResolver,
    private readonly authz: AuthorizationService,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // WebSocket message handlers: the socket was authenticated at its upgrade (authorizeUpgrade below).
    if (context.getType() !== 'http') return this.canActivateNonHttp(context);
    const targets = [context.getHandler(), context.getClass()];
    const access = this.reflector.getAllAndOverride<AccessDeclaration | undefined>(ACCESS_METADATA, targets);
    if (!access)
      throw new ForbiddenError('Route declares no access rule.', 'permission', { code: 'UNDECLARED_ACCESS' });
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const dialect = routeDialect(this.reflector, context);
    setRequestDialect(req, dialect);
    const rules = this.reflector.getAllAndOverride<CallerRule[] | undefined>(CALLER_RULES, targets) ?? [];

    let principal: AnyPrincipal | undefined;
    try {
      principal = await this.credentials.resolveAny(req, res);
    } catch (error) {
      // On public routes only Gitea refuses bad credentials; the other dialects go on anonymously
      // (still through the route's resource assignment: git then challenges for a private repository).
      if (access.kind !== 'public' || dialect === 'gitea') throw error;
      principal = undefined;
    }
    const caller = principal ? callerFacts(principal) : undefined;
    if (principal && caller) {
      setRequestPrincipal(req, principal);
      setRequestCaller(req, caller);
    }
    const ruleContext: CallerRuleContext = {
      req,
      caller,
      publicRoute: access.kind === 'public',
      allowMustChangePassword: access.kind === 'authenticated' && access.allowMustChangePassword === true,
    };
    for (const rule of rules) if (rule.stage === 'identified') rule.check(ruleContext);
    // Resource assignment (Gitea's repoAssignment) before login and token requirements.
    const assigner = this.reflector.getAllAndOverride<Type<ResourceAssigner> | undefined>(
      RESOURCE_ASSIGNMENT,
      targets,
    );
    if (assigner) {
      // Gitea checks the route group's token scope before repoAssignment: a key without it is 403
      // whatever the repository (anonymous callers carry no key, so their 404 still comes first).
      if (
        access.kind === 'authenticated' &&
        principal?.kind === 'user' &&
        access.scopes?.length &&
        !access.tokenScope
      ) {
        const problem = missingGiteaScope(principal, access.scopes, req.method);
        if (problem) throw new ForbiddenError(problem, 'scope');
      }
      await this.moduleRef.get(assigner, { strict: false }).assign(context, principal, access);
    }
    if (access.kind === 'public') {
      // Protocol routes: a key needs the declared scopes even where anonymous callers are admitted.
      if (principal?.kind === 'user' && access.scopes?.length && access.scopeCheck !== 'resource') {
        const problem = missingGiteaScope(principal, access.scopes, req.method);
        if (problem) throw new ForbiddenError(problem, 'scope');
      }
      return true;
    }

    if (!principal) throw new UnauthenticatedError('missing');
    if (!admittedKinds(access).includes(principal.kind)) {
      throw new UnauthenticatedError('missing', undefined, {
        detail: `This route does not accept ${principal.kind} credentials.`,
      });
    }
    for (const rule of rules) if (rule.stage === 'authenticated') rule.check(ruleContext);
    if (principal.kind !== 'user') {
      // Agents and provisioners carry no user rights: administrator and site-wide RBAC routes are closed to them.
      if (access.admin || access.rbac) throw new ForbiddenError();
      return true;
    }

    const giteaScopes = access.scopes && access.scopes.length > 0 ? access.scopes : undefined;
    if (giteaScopes || access.tokenScope) {
      // Either vocabulary the route declares may grant access (Gitea categories or a Coder resource/action).
      const problem = giteaScopes ? missingGiteaScope(principal, giteaScopes, req.method) : null;
      const giteaOk = giteaScopes !== undefined && problem === null;
      const coderOk = access.tokenScope !== undefined && keyGrants(principal, access.tokenScope);
      if (!giteaOk && !coderOk) {
        throw new ForbiddenError(problem ?? undefined, 'scope', {
          // Coder answers its generic 403 (the renderer's default detail); the other dialects name the scope.
          detail:
            access.tokenScope && dialect !== 'coder'
              ? `API key scopes do not allow ${access.tokenScope.action} on ${access.tokenScope.type}.`
              : undefined,
        });
      }
    }
    if (access.admin && !principal.user.isAdmin) {
      throw new ForbiddenError('Administrator required.', 'admin_required');
    }
    if (access.admin && !access.scopes) {
      // Administrator routes without their own scope list need the `admin` scope category, so a
      // narrowly scoped token of an administrator cannot use them.
      const problem = missingGiteaScope(principal, ['admin'], req.method);
      if (problem) throw new ForbiddenError(problem, 'scope');
    }
    if (access.rbac) await this.authz.require(principal, access.rbac.action, { type: access.rbac.type });
    return true;
  }

  // ---------------------------------------------------------------- non-HTTP (realtime) ----
  // WebSocket upgrades and SSE streams go through the same strategies and declarations as HTTP:
  // RealtimeGateways (platform/realtime) calls authorizeUpgrade() through the auth module's
  // UpgradeAuthorizer before every upgrade; message handlers of a gateway land in canActivateNonHttp.

  /**
   * The upgrade of a gateway: canActivate() on an HTTP-shaped copy of the upgrade request, with the
   * gateway class as the "controller" (its @Public/@Authenticated applies; none = refused). Returns
   * the caller (undefined on a public gateway called anonymously); throws like canActivate.
   */
  async authorizeUpgrade(gateway: Function, req: IncomingMessage): Promise<AnyPrincipal | undefined> {
    const shim = upgradeRequest(req);
    const res = { setHeader: () => undefined, getHeader: () => undefined } as unknown as ServerResponse;
    const context = new ExecutionContextHost([shim, res, undefined], gateway as Type, UPGRADE_HANDLER);
    await this.canActivate(context);
    // Agents' gateways (`@Authenticated({principals: ['agent']})`) get the agent.
    return requestAnyPrincipal(shim);
  }

  /**
   * Message handlers of a WebSocket gateway: the socket was authenticated at the upgrade
   * (authorizeUpgrade); a handler or gateway without an access declaration is still refused.
   */
  private canActivateNonHttp(context: ExecutionContext): boolean {
    const access = this.reflector.getAllAndOverride<AccessDeclaration | undefined>(ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!access)
      throw new ForbiddenError('Route declares no access rule.', 'permission', { code: 'UNDECLARED_ACCESS' });
    return true;
  }
}

/** Stand-in handler of an upgrade: it carries no metadata, so the gateway class's declaration applies. */
function UPGRADE_HANDLER(): void {}

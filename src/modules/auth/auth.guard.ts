import { type CanActivate, type ExecutionContext, Injectable, type Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { routeDialect, setRequestDialect } from '../../api/dialect';
import { ForbiddenError } from '../../platform/errors/domain-error';
import { CALLER_RULES, type CallerRule } from '../../platform/http/request-caller';
import { ACCESS_METADATA, type AccessDeclaration } from '../../api/access/access.decorators';
import { AuthorizationService } from './authorization.service';
import { CredentialResolver } from './credential-resolver.service';
import { type AnyPrincipal, requestAnyPrincipal } from '../../api/access/principal';
import { upgradeRequest } from './upgrade-request';
import {
  administratorPolicy,
  callerRulesPolicy,
  credentialsPolicy,
  principalKindsPolicy,
  publicRoutePolicy,
  rbacPolicy,
  resourceAssignmentPolicy,
  tokenScopesPolicy,
  userRightsPolicy,
} from './policies/access-policies';
import { type AccessPolicy, runPolicies } from './policies/access-policy';

/**
 * Deny by default: every HTTP route must declare @Public() or @Authenticated(...). A route that
 * declares nothing is refused here, and test/platform/routes-declare-access.e2e-spec.ts fails on it.
 *
 * The decision is an ordered chain of small policies (policies/access-policies.ts), as Gitea chains
 * its middleware: credentials (the Passport strategies) → the dialect's `identified` caller rules
 * (Gitea: must change password) → resource assignment → public routes end → a caller of an admitted
 * kind → the dialect's `authenticated` rules (Coder: cookie CSRF) → agents and provisioners end →
 * token scopes (either declared vocabulary) → administrator → site-wide RBAC. Each policy passes,
 * allows (ends the chain) or throws the refusal. The dialect comes from route metadata, never the path.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  /** The chain, in order (README "Decision order of the AuthGuard"). */
  readonly policies: readonly AccessPolicy[];

  constructor(
    private readonly reflector: Reflector,
    credentials: CredentialResolver,
    authz: AuthorizationService,
    moduleRef: ModuleRef,
  ) {
    this.policies = [
      credentialsPolicy(credentials),
      callerRulesPolicy('identified'),
      resourceAssignmentPolicy(reflector, moduleRef),
      publicRoutePolicy,
      principalKindsPolicy,
      callerRulesPolicy('authenticated'),
      userRightsPolicy,
      tokenScopesPolicy,
      administratorPolicy,
      rbacPolicy(authz),
    ];
  }

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
    return runPolicies(this.policies, {
      context,
      access,
      dialect,
      req,
      res,
      rules,
      principal: undefined,
      ruleContext: {
        req,
        caller: undefined,
        publicRoute: access.kind === 'public',
        allowMustChangePassword: access.kind === 'authenticated' && access.allowMustChangePassword === true,
      },
    });
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

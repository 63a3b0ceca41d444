import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { dialectOfPath } from '../../api/dialect';
import { BadRequestError, ForbiddenError, UnauthenticatedError } from '../../platform/errors/domain-error';
import { CSRF_FAILURE, csrfSatisfied } from './csrf';
import { ACCESS_METADATA, type AccessDeclaration } from './access.decorators';
import { AuthorizationService } from './authorization.service';
import { CredentialResolver } from './credential-resolver.service';
import { setRequestPrincipal, type Principal } from './principal';
import { keyGrants, missingGiteaScope } from './token-scopes';

/**
 * Deny by default: every HTTP route must declare @Public() or @Authenticated(...). A route that
 * declares nothing is refused here, and test/routes-declare-access.e2e-spec.ts fails on it.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialResolver,
    private readonly authz: AuthorizationService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true; // WebSocket gateways authenticate the upgrade themselves.
    const access = this.reflector.getAllAndOverride<AccessDeclaration | undefined>(ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!access) throw new ForbiddenError('Route declares no access rule.', 'permission', { code: 'UNDECLARED_ACCESS' });
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const dialect = dialectOfPath(req.path);

    let principal: Principal | undefined;
    try {
      principal = await this.credentials.resolve(req, res);
    } catch (error) {
      // On public routes only Gitea refuses bad credentials; the other dialects go on anonymously.
      if (access.kind === 'public' && dialect !== 'gitea') return true;
      throw error;
    }
    if (principal) setRequestPrincipal(req, principal);
    // Gitea refuses every API call of a signed-in user who must change the password, public routes too.
    const mayChangePassword = access.kind === 'authenticated' && access.allowMustChangePassword === true;
    if (principal && dialect === 'gitea' && principal.user.mustChangePassword && !mayChangePassword) {
      throw new ForbiddenError('You must change your password.', 'must_change_password');
    }
    if (access.kind === 'public') return true;

    if (!principal) throw new UnauthenticatedError('missing', 'Authentication required.');
    if (dialect === 'coder' && principal.source === 'cookie' && !csrfSatisfied(req)) {
      throw new BadRequestError(CSRF_FAILURE, { code: 'CSRF' });
    }
    const giteaScopes = access.scopes && access.scopes.length > 0 ? access.scopes : undefined;
    if (giteaScopes || access.tokenScope) {
      // Either vocabulary the route declares may grant access (Gitea categories or a Coder resource/action).
      const problem = giteaScopes ? missingGiteaScope(principal, giteaScopes, req.method) : null;
      const giteaOk = giteaScopes !== undefined && problem === null;
      const coderOk = access.tokenScope !== undefined && keyGrants(principal, access.tokenScope);
      if (!giteaOk && !coderOk) {
        throw new ForbiddenError(problem ?? 'Forbidden.', 'scope', {
          // Coder answers its generic 403 (the renderer's default detail); the other dialects name the scope.
          detail: access.tokenScope && dialect !== 'coder'
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
}

import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ForbiddenError } from '../../platform/errors/domain-error';
import { requestPrincipal } from '../../api/access/principal';

/** How long a password confirmation of a cookie session lasts (Nextcloud: 30 minutes, plus 15 s grace). */
export const PASSWORD_CONFIRMATION_WINDOW_MS = 30 * 60 * 1000 + 15 * 1000;

/**
 * Nextcloud's #[PasswordConfirmationRequired] on devplane: Basic credentials and token requests
 * pass; a cookie session needs `token.passwordConfirmedAt` (set at login and by
 * `POST /login/confirm`) within the last 30 minutes. Runs after authentication and the CSRF guard.
 */
@Injectable()
export class PasswordConfirmationGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = requestPrincipal(context.switchToHttp().getRequest<Request>());
    if (!principal || principal.source !== 'cookie') return true;
    const confirmedAt = principal.token?.passwordConfirmedAt;
    if (confirmedAt && Date.now() - new Date(confirmedAt).getTime() <= PASSWORD_CONFIRMATION_WINDOW_MS)
      return true;
    throw new ForbiddenError('Password confirmation is required', 'permission', {
      code: 'PASSWORD_CONFIRMATION_REQUIRED',
    });
  }
}

import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { PreconditionFailedError } from '../../platform/errors/domain-error';

/**
 * Nextcloud's CSRF rule for OCS controllers: the request needs `OCS-APIRequest: true` unless it
 * carries `Authorization: Bearer`. Runs after authentication, so 401/403 come first (reference §2.2).
 */
@Injectable()
export class OcsApiRequestGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers['ocs-apirequest'];
    if (header === 'true') return true;
    if (/^bearer\s/i.test(req.headers.authorization ?? '')) return true;
    throw new PreconditionFailedError('CSRF check failed', { code: 'OCS_CSRF' });
  }
}

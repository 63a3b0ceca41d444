import type { AnyDomainError } from '../../platform/errors/domain-error';
import { InternalFailure } from '../internal-failure';
import type { ErrorRenderContext, RenderedError } from '../rendered-error';
import { DTO_VALIDATION } from '../validation';
import { ocsEnvelope } from './ocs-envelope';
import { ocsValidationMessage } from './ocs-validation';

function failure(status: number, statuscode: number, message: string): RenderedError {
  return { status, body: ocsEnvelope('failure', statuscode, message, []) };
}

/** OCS v2 error envelope (reference nextcloud-workflowengine.md §2.1, §2.2). */
export function renderOcsError(
  error: AnyDomainError | InternalFailure,
  _context: ErrorRenderContext,
): RenderedError {
  if (error instanceof InternalFailure) return failure(500, 996, 'Internal Server Error\n');
  switch (error.kind) {
    case 'bad_request':
    case 'invalid':
      return failure(
        400,
        400,
        error.code === DTO_VALIDATION ? ocsValidationMessage(error.fields) : error.message,
      );
    case 'unauthenticated': {
      const missing = error.reason === 'missing';
      return {
        ...failure(401, 997, missing ? 'Current user is not logged in' : 'Unauthorised'),
        headers: missing ? undefined : { 'WWW-Authenticate': 'Basic realm="Authorisation Required"' },
      };
    }
    case 'forbidden':
      return failure(
        403,
        403,
        error.reason === 'admin_required' ? 'Logged in account must be an admin' : error.message,
      );
    case 'not_found':
      return failure(404, 404, error.message);
    case 'conflict':
      return failure(409, 409, error.message);
    case 'gone':
      return failure(410, 410, error.message);
    case 'precondition_failed':
      // The CSRF refusal is plain JSON in Nextcloud, not an envelope.
      if (error.code === 'OCS_CSRF')
        return { status: 412, body: { message: 'CSRF check failed' }, bypassEnvelope: true };
      return failure(412, 412, error.message);
    case 'too_large':
      return failure(413, 413, error.message);
    case 'unsupported_media_type':
      return failure(415, 415, error.message);
    case 'locked':
      return failure(423, 423, error.message);
    case 'rate_limited':
      return failure(429, 429, error.message);
    case 'unavailable':
      return failure(503, 503, error.message);
    case 'not_allowed':
      return failure(405, 405, error.message);
    case 'moved':
      return { ...failure(307, 307, error.message), headers: { Location: error.location } };
  }
}

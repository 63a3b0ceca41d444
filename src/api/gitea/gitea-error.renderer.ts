import type { AnyDomainError, ForbiddenError } from '../../platform/errors/domain-error';
import { DTO_VALIDATION } from '../validation';
import { InternalFailure } from '../internal-failure';
import type { ErrorRenderContext, RenderedError } from '../rendered-error';
import { giteaValidationMessage } from './gitea-validation';

/** Gitea's error body `{message, url}` (reference gitea.md §2.1). */
export function renderGiteaError(
  error: AnyDomainError | InternalFailure,
  context: ErrorRenderContext,
): RenderedError {
  const url = `${context.config.publicUrl}api/swagger`;
  const withUrl = (message: string) => ({ message, url });
  if (error instanceof InternalFailure) {
    return {
      status: 500,
      body: withUrl(context.callerIsAdmin ? String(error.cause) : (error.publicMessage ?? '')),
    };
  }
  switch (error.kind) {
    case 'bad_request':
      return { status: 400, body: withUrl(error.message) };
    case 'invalid':
      return {
        status: 422,
        body: withUrl(
          error.code === DTO_VALIDATION ? giteaValidationMessage(error.fields, error.message) : error.message,
        ),
      };
    case 'unauthenticated':
      if (error.reason === 'inactive')
        return { status: 403, body: { message: 'This account is not activated.' } };
      if (error.reason === 'login_prohibited') {
        return {
          status: 403,
          body: {
            message: 'This account is prohibited from signing in, please contact your site administrator.',
          },
        };
      }
      return {
        status: 401,
        body: withUrl(
          error.reason === 'missing'
            ? 'token is required'
            : error.generic
              ? 'invalid username, password or token'
              : error.message,
        ),
      };
    case 'forbidden':
      return renderForbidden(error, context);
    case 'not_found':
      return {
        status: 404,
        body: { message: error.message || 'not found', url, errors: error.detail ? [error.detail] : [] },
      };
    case 'conflict':
      return { status: 409, body: withUrl(error.message) };
    case 'gone':
      return { status: 410, body: withUrl(error.message) };
    case 'precondition_failed':
      return { status: 412, body: withUrl(error.message) };
    case 'too_large':
      return { status: 413, body: withUrl(error.message) };
    case 'unsupported_media_type':
      return { status: 415, body: withUrl(error.message) };
    case 'locked':
      return { status: 423, body: withUrl(error.message) };
    case 'rate_limited':
      return { status: 429, body: withUrl(error.message) };
    case 'unavailable':
      return { status: 503, body: withUrl(error.message) };
    case 'not_allowed':
      return { status: 405, body: withUrl(error.message) };
    case 'moved':
      // Gitea's repository assignment: 307 to the renamed path, no body.
      return { status: 307, body: undefined, headers: { Location: error.location } };
  }
}

function renderForbidden(error: ForbiddenError, context: ErrorRenderContext): RenderedError {
  const url = `${context.config.publicUrl}api/swagger`;
  switch (error.reason) {
    case 'admin_required':
      return { status: 403, body: { message: 'user should be the site admin', url } };
    case 'must_change_password':
      // Account-state refusals carry no `url` in Gitea.
      return {
        status: 403,
        body: {
          message: `You must change your password. Change it at: ${context.config.publicUrl}user/change_password`,
        },
      };
    case 'inactive':
      return { status: 403, body: { message: 'This account is not activated.' } };
    case 'login_prohibited':
      return {
        status: 403,
        body: {
          message: 'This account is prohibited from signing in, please contact your site administrator.',
        },
      };
    case 'owner_required':
    case 'scope':
    case 'permission':
      return { status: 403, body: { message: error.message, url } };
  }
}

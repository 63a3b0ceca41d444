import type { AnyDomainError } from '../../platform/errors/domain-error';
import { basicChallenge } from '../basic-challenge';
import { InternalFailure } from '../internal-failure';
import { protocolStatus } from '../protocol-status';
import type { ErrorRenderContext, RenderedError } from '../rendered-error';

/**
 * Generic package registry errors: plain text (as Gitea's generic registry answers curl), with the
 * field details of a validation failure after the message; 401 with a Basic challenge.
 */
export function renderGenericError(
  error: AnyDomainError | InternalFailure,
  _context: ErrorRenderContext,
): RenderedError {
  if (error instanceof InternalFailure)
    return { status: 500, body: `${error.publicMessage ?? 'Internal Server Error'}\n` };
  switch (error.kind) {
    case 'unauthenticated':
      return { status: 401, body: `${error.message}\n`, headers: basicChallenge() };
    case 'moved':
      return { status: 307, body: `${error.message}\n`, headers: { Location: error.location } };
    case 'invalid': {
      const details = error.fields.map((field) => `${field.field}: ${field.detail}`);
      return { status: 400, body: `${[error.message, ...details].join('\n')}\n` };
    }
    case 'bad_request':
    case 'forbidden':
    case 'not_found':
    case 'conflict':
    case 'gone':
    case 'precondition_failed':
    case 'too_large':
    case 'unsupported_media_type':
    case 'locked':
    case 'rate_limited':
    case 'unavailable':
    case 'not_allowed':
      return { status: protocolStatus(error.kind), body: `${error.message}\n` };
  }
}

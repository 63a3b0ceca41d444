import type { AnyDomainError } from '../../platform/errors/domain-error';
import { basicChallenge } from '../basic-challenge';
import { InternalFailure } from '../internal-failure';
import { protocolStatus } from '../protocol-status';
import type { ErrorRenderContext, RenderedError } from '../rendered-error';

/**
 * npm registry errors: `{"error": "<message>"}` (the npm CLI prints `error`); 401 carries a Basic
 * challenge too, so npm knows to send its configured credentials.
 */
export function renderNpmError(
  error: AnyDomainError | InternalFailure,
  _context: ErrorRenderContext,
): RenderedError {
  if (error instanceof InternalFailure)
    return { status: 500, body: { error: error.publicMessage ?? 'Internal Server Error' } };
  switch (error.kind) {
    case 'unauthenticated':
      return { status: 401, body: { error: error.message }, headers: basicChallenge() };
    case 'moved':
      return { status: 307, body: { error: error.message }, headers: { Location: error.location } };
    case 'invalid': {
      const first = error.fields[0];
      return {
        status: 400,
        body: { error: first ? `${error.message} ${first.field}: ${first.detail}` : error.message },
      };
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
      return { status: protocolStatus(error.kind), body: { error: error.message } };
  }
}

import type { AnyDomainError } from '../../platform/errors/domain-error';
import { basicChallenge } from '../basic-challenge';
import { InternalFailure } from '../internal-failure';
import { protocolStatus } from '../protocol-status';
import type { ErrorRenderContext, RenderedError } from '../rendered-error';

/**
 * git smart HTTP errors: a `text/plain` body with the message on one line (git prints it after
 * `remote:`/`fatal:`); 401 carries a Basic challenge so git asks for credentials (or its helper).
 */
export function renderGitError(
  error: AnyDomainError | InternalFailure,
  context: ErrorRenderContext,
): RenderedError {
  if (error instanceof InternalFailure)
    return { status: 500, body: `${error.publicMessage ?? 'Internal Server Error'}\n` };
  const text = `${error.message}\n`;
  // Git LFS (`.../info/lfs/...`) reads JSON errors `{message}` and prints the message.
  const lfs = context.req.path.includes('/info/lfs/');
  const body = lfs ? { message: error.message } : text;
  switch (error.kind) {
    case 'unauthenticated':
      return { status: 401, body, headers: basicChallenge() };
    case 'moved':
      // git follows the redirect of its first request (info/refs) and uses the new base URL after it.
      return { status: 307, body, headers: { Location: error.location } };
    case 'bad_request':
    case 'invalid':
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
      return { status: protocolStatus(error.kind), body };
  }
}

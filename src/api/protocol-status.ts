import type { DomainErrorKind } from '../platform/errors/domain-error';

/**
 * The HTTP status of a DomainError kind in the protocol dialects (git, npm, generic) and `plain`,
 * which have no validation status of their own: one exhaustive switch, so a new kind fails to compile.
 */
export function protocolStatus(kind: DomainErrorKind): number {
  switch (kind) {
    case 'bad_request':
    case 'invalid':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'gone':
      return 410;
    case 'precondition_failed':
      return 412;
    case 'too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'locked':
      return 423;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'not_allowed':
      return 405;
    case 'moved':
      return 307;
  }
}

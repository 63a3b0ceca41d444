import { type AnyDomainError, EXPECTATION_FAILED, type FieldError } from '../../platform/errors/domain-error';
import { InternalFailure } from '../internal-failure';
import { DTO_VALIDATION } from '../validation';
import { coderValidationError } from './coder-validation';
import type { ErrorRenderContext, RenderedError } from '../rendered-error';

export const CODER_SIGNED_OUT =
  'You are signed out or your session has expired. Please sign in again to continue.';
export const CODER_FORBIDDEN_DETAIL =
  "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.";
export const CODER_NOT_FOUND = 'Resource not found or you do not have access to this resource';
export const CODER_INTERNAL = 'An internal server error occurred.';

interface CoderResponse {
  message: string;
  detail?: string;
  validations?: { field: string; detail: string }[];
}

function validations(fields: FieldError[]): { field: string; detail: string }[] | undefined {
  return fields.length === 0 ? undefined : fields.map(({ field, detail }) => ({ field, detail }));
}

function body(message: string, detail?: string, fields: FieldError[] = []): CoderResponse {
  const response: CoderResponse = { message };
  if (detail !== undefined && detail !== '') response.detail = detail;
  const list = validations(fields);
  if (list) response.validations = list;
  return response;
}

function wwwAuthenticate(config: ErrorRenderContext['config'], error: string, description: string): string {
  return `Bearer realm="devplane", error="${error}", error_description="${description}", resource_metadata="${config.publicUrl}.well-known/oauth-protected-resource"`;
}

/** Coder's error body `{message, detail, validations}` (reference coder.md §E, §A.4). */
export function renderCoderError(
  error: AnyDomainError | InternalFailure,
  context: ErrorRenderContext,
): RenderedError {
  if (error instanceof InternalFailure)
    return { status: 500, body: body(error.publicMessage ?? CODER_INTERNAL) };
  switch (error.kind) {
    case 'bad_request':
      return { status: 400, body: body(error.message, error.detail, error.fields) };
    case 'invalid':
      // DTO validation failures from the global pipe: Coder's texts from the constraint metadata.
      if (error.code === DTO_VALIDATION) return renderCoderError(coderValidationError(error.fields), context);
      return { status: 400, body: body(error.message, error.detail, error.fields) };
    case 'unauthenticated': {
      let detail = '';
      let message = CODER_SIGNED_OUT;
      switch (error.reason) {
        case 'missing':
          detail = 'Cookie "service_session_token" or query parameter must be provided.';
          break;
        case 'malformed':
          detail = `Invalid API key format: ${error.detail ?? 'expected <id>-<secret>'}`;
          break;
        case 'unknown_key':
          detail = 'API key is invalid.';
          break;
        case 'bad_secret':
          detail = 'API key secret is invalid.';
          break;
        case 'expired':
          detail = `API key expired at "${error.detail ?? ''}".`;
          break;
        case 'bad_password':
        case 'inactive':
        case 'login_prohibited':
          message = error.message;
          detail = error.detail ?? '';
          break;
      }
      return {
        status: 401,
        body: body(message, detail),
        headers: { 'WWW-Authenticate': wwwAuthenticate(context.config, 'invalid_token', detail || message) },
      };
    }
    case 'forbidden':
      if (error.generic) {
        return { status: 403, body: body('Forbidden.', error.detail ?? CODER_FORBIDDEN_DETAIL) };
      }
      return { status: 403, body: body(error.message, error.detail, error.fields) };
    case 'not_found':
      return { status: 404, body: body(error.message || CODER_NOT_FOUND, error.detail) };
    case 'conflict':
      return { status: 409, body: body(error.message, error.detail, error.fields) };
    case 'gone':
      return { status: 410, body: body(error.message, error.detail) };
    case 'precondition_failed':
      // Coder answers 417 Expectation Failed where a precondition of the target is unmet (a user who still owns workspaces).
      return {
        status: error.code === EXPECTATION_FAILED ? 417 : 412,
        body: body(error.message, error.detail),
      };
    case 'too_large':
      // Coder's generic body limit text, except for routes with their own (chat files: `File too large.`).
      return {
        status: 413,
        body:
          error.code === 'FILE_TOO_LARGE'
            ? body(error.message, error.detail)
            : body('Request body too large.', error.detail ?? 'Maximum request body size is 4194304 bytes.'),
      };
    case 'unsupported_media_type':
      return { status: 415, body: body(error.message, error.detail) };
    case 'locked':
      return { status: 423, body: body(error.message, error.detail) };
    case 'rate_limited':
      return { status: 429, body: body(error.message) };
    case 'unavailable':
      return { status: 503, body: body(error.message, error.detail) };
    case 'not_allowed':
      return { status: 405, body: body(error.message, error.detail) };
    case 'moved':
      return { status: 307, body: body(error.message, error.detail), headers: { Location: error.location } };
  }
}

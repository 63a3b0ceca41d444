/**
 * The one error family of the domain. Services throw these; each dialect renders them
 * (src/api/<dialect>/*-error.renderer.ts) with an exhaustive switch over `kind`, so a new
 * kind fails to compile until every dialect handles it.
 */
export type DomainErrorKind =
  | 'bad_request'
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'precondition_failed'
  | 'too_large'
  | 'unsupported_media_type'
  | 'locked'
  | 'rate_limited'
  | 'unavailable'
  | 'not_allowed'
  | 'moved';

export interface FieldError {
  /** Wire name of the field (JSON name). */
  field: string;
  /** Human readable problem. */
  detail: string;
  /** Rule that failed, when known (required, max_size, in, email, ...; class-validator's constraint name at the edge). */
  rule?: string;
  /** The offending value, when the failure came from DTO validation (dialect formatters quote it). */
  value?: unknown;
  /** The constraint's context (`{ context: {...} }` option of a class-validator decorator). */
  context?: Record<string, unknown>;
  /** The DTO class the field belongs to (Coder's Go struct name, Gitea's form name). */
  target?: string;
}

/**
 * The stable machine codes, declared by the module that throws them (each module's `*.error-codes.ts`
 * adds its own by declaration merging: `declare module '.../domain-error' { interface DomainErrorCodes
 * { WORKFLOW_SCOPE_MISMATCH: true } }`), so a code that no module declares fails to compile.
 */
export interface DomainErrorCodes {}
export type DomainErrorCode = keyof DomainErrorCodes;

export interface DomainErrorOptions {
  /** Stable machine code, e.g. WORKFLOW_SCOPE_MISMATCH; dialects may pick texts by it. */
  code?: DomainErrorCode;
  /** Technical detail for clients (Coder's `detail`). */
  detail?: string;
  fields?: FieldError[];
  cause?: unknown;
}

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  readonly code: DomainErrorCode | undefined;
  readonly detail: string | undefined;
  readonly fields: FieldError[];

  constructor(message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.detail = options.detail;
    this.fields = options.fields ?? [];
  }
}

/** A request that makes no sense for the domain (400 in every dialect). */
export class BadRequestError extends DomainError {
  readonly kind = 'bad_request' as const;
}

/** Input that fails validation (Coder 400, OCS 400, Gitea 422). */
export class InvalidError extends DomainError {
  readonly kind = 'invalid' as const;
}

export type UnauthenticatedReason =
  | 'missing'
  | 'malformed'
  | 'unknown_key'
  | 'bad_secret'
  | 'expired'
  | 'bad_password'
  | 'inactive'
  | 'login_prohibited';

export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated' as const;
  /** No message of the thrower's own: each dialect says it in its words. */
  readonly generic: boolean;
  constructor(
    readonly reason: UnauthenticatedReason,
    message?: string,
    options: DomainErrorOptions = {},
  ) {
    super(message || 'Authentication required.', options);
    this.generic = !message;
  }
}

export type ForbiddenReason =
  | 'admin_required'
  | 'owner_required'
  | 'scope'
  | 'must_change_password'
  | 'inactive'
  | 'login_prohibited'
  | 'permission';

export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden' as const;
  /** No message of the thrower's own (a plain permission refusal): each dialect says it in its words. */
  readonly generic: boolean;
  constructor(
    message?: string,
    readonly reason: ForbiddenReason = 'permission',
    options: DomainErrorOptions = {},
  ) {
    super(message || 'Forbidden.', options);
    this.generic = !message;
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
}

export class ConflictError extends DomainError {
  readonly kind = 'conflict' as const;
}

export class GoneError extends DomainError {
  readonly kind = 'gone' as const;
}

/** Code of a PreconditionFailedError that Coder renders as 417 Expectation Failed. */
export const EXPECTATION_FAILED = 'EXPECTATION_FAILED';

export class PreconditionFailedError extends DomainError {
  readonly kind = 'precondition_failed' as const;
}

export class TooLargeError extends DomainError {
  readonly kind = 'too_large' as const;
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly kind = 'unsupported_media_type' as const;
}

export class LockedError extends DomainError {
  readonly kind = 'locked' as const;
}

export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited' as const;
}

export class UnavailableError extends DomainError {
  readonly kind = 'unavailable' as const;
}

/** The operation exists but cannot be done in the resource's state (405: merging a merged pull request). */
export class NotAllowedError extends DomainError {
  readonly kind = 'not_allowed' as const;
}

/**
 * The resource was renamed or transferred: the same request belongs at `location` (a path and query
 * on this server, already rewritten by the thrower). Gitea's repository assignment answers 307;
 * each dialect renders it with its own body and a `Location` header.
 */
export class MovedError extends DomainError {
  readonly kind = 'moved' as const;
  constructor(
    readonly location: string,
    message = 'moved',
    options: DomainErrorOptions = {},
  ) {
    super(message, options);
  }
}

/**
 * Every concrete kind, as a discriminated union on `kind`. Module errors extend one of these
 * classes (e.g. `class ScopeMismatchError extends ForbiddenError`), never DomainError directly.
 */
export type AnyDomainError =
  | BadRequestError
  | InvalidError
  | UnauthenticatedError
  | ForbiddenError
  | NotFoundError
  | ConflictError
  | GoneError
  | PreconditionFailedError
  | TooLargeError
  | UnsupportedMediaTypeError
  | LockedError
  | RateLimitedError
  | UnavailableError
  | NotAllowedError
  | MovedError;

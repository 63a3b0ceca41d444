/** The DomainError codes the audit module throws (issue 32 item 6). */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    /** A query parameter or search term of `GET /api/v2/audit` is not valid. */
    INVALID_QUERY: true;
  }
}
export {};

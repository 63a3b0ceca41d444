/**
 * The DomainError codes the audit module throws: only the shared `INVALID_QUERY` (declared by the API
 * layer, src/api/api.error-codes.ts). Kept so each module declares its codes in one place (issue 32 item 6).
 */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {}
}
export {};

/**
 * The DomainError codes the system module throws: none (readiness failures are plain UnavailableErrors,
 * rendered by kind). Kept so each module declares its codes in one place (issue 32 item 6).
 */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {}
}
export {};

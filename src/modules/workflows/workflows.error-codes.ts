/** The DomainError codes the workflows module throws (issue 32 item 6). */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    /** The rule is not in the caller's scope (or does not exist). */
    WORKFLOW_SCOPE: true;
    /** Nextcloud's validation of a rule failed (CheckInvalidError). */
    WORKFLOW_INVALID: true;
    /** User-scope rules are disabled by configuration. */
    WORKFLOW_USER_SCOPE_DISABLED: true;
    /** An access-control rule refused the file. */
    WORKFLOW_ACCESS_DENIED: true;
    /** The route needs a recent password confirmation. */
    PASSWORD_CONFIRMATION_REQUIRED: true;
  }
}
export {};

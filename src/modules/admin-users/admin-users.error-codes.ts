/** Every code the admin-users module passes to a DomainError (issue 32 item 6), by declaration merging. */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    ADMIN_POLICY: true;
    EMAIL_DOMAIN: true;
    EMAIL_INVALID: true;
    LAST_ADMIN: true;
    LOGIN_SOURCE_NOT_FOUND: true;
    PASSWORD_POLICY: true;
    TARGET_IS_ORGANIZATION: true;
    USERNAME_INVALID: true;
    /** Gitea's create-user password answers (the message is the code). */
    PasswordIsRequired: true;
    PasswordComplexity: true;
    PasswordPwned: true;
    // `OWNS_<KIND>` (the account still owns resources of a registered kind) is declared by identity,
    // whose OwnedResourcesRegistry defines the kinds.
  }
}
export {};

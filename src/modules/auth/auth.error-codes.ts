/** Every code the auth module passes to a DomainError (issue 32 item 6), by declaration merging. */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    BASIC_AUTH_REQUIRED: true;
    INCORRECT_PASSCODE: true;
    OIDC_EMAIL_UNVERIFIED: true;
    OIDC_ERROR: true;
    OIDC_EXCHANGE: true;
    OIDC_LOGIN_TYPE: true;
    OIDC_MERGE_COOKIE: true;
    OIDC_MERGE_EMAIL: true;
    OIDC_MERGE_OTHER_USER: true;
    OIDC_MERGE_STATE: true;
    OIDC_MERGE_STATE_MISMATCH: true;
    OIDC_NOT_CONFIGURED: true;
    OIDC_NO_EMAIL: true;
    OIDC_NO_SIGNUPS: true;
    OIDC_NO_SUB: true;
    OIDC_STATE_MISMATCH: true;
    OIDC_STATE_MISSING: true;
    OIDC_UNREACHABLE: true;
    PASSWORD_GUESSES: true;
    SAME_PASSWORD: true;
    TOKEN_NAME_AMBIGUOUS: true;
    TOKEN_NOT_FOUND: true;
    TOKEN_OWNER_REQUIRED: true;
    TOKEN_SCOPE_INVALID: true;
    UNDECLARED_ACCESS: true;
    USER_INACTIVE: true;
  }
}
export {};

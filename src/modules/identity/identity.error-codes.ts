/** Every code the identity module passes to a DomainError (issue 32 item 6), by declaration merging. */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    ALREADY_MEMBER: true;
    BAD_SHARING_MODE: true;
    BAD_TIMEZONE: true;
    BAD_USER_ID: true;
    BOOTSTRAP_ADMIN: true;
    CANNOT_BLOCK: true;
    CANNOT_UNBLOCK: true;
    DEFAULT_ORG: true;
    DELETE_SELF: true;
    EVERYONE_DELETE: true;
    EVERYONE_MEMBERS: true;
    EVERYONE_NAME: true;
    GROUP_EXISTS: true;
    IMPORT_PARSE: true;
    IMPORT_TOO_LARGE: true;
    LAST_OWNER: true;
    NONE_NEEDS_SA: true;
    NOT_BLOCKED: true;
    NOT_OIDC_USER: true;
    NOT_ORG_MEMBER: true;
    NOT_ORG_OWNER: true;
    NO_OIDC: true;
    ORG_MEMBER_REQUIRED: true;
    ORG_NAME: true;
    ORG_NAME_TAKEN: true;
    ORG_NOT_FOUND: true;
    ORG_OWNER_REQUIRED: true;
    OWNERS_TEAM: true;
    OWN_ROLES: true;
    REMOVE_SELF: true;
    RESERVED_GROUP: true;
    SA_EMAIL: true;
    SA_LOGIN_TYPE: true;
    SA_PASSWORD: true;
    SUSPEND_OWNER: true;
    SUSPEND_SELF: true;
    TEAM_EXISTS: true;
    TEAM_NAME: true;
    TEAM_NOT_FOUND: true;
    TOKEN_NAME_TAKEN: true;
    TZ_BOTH: true;
    UNKNOWN_ROLE: true;
    USER_EMAIL_TAKEN: true;
    USER_EXISTS: true;
    USER_NAME_TAKEN: true;
    USER_NOT_FOUND: true;
    USER_SECRETS_LIMIT: true;
    USER_SECRET_CONFLICT: true;
    USER_SECRET_EMPTY_UPDATE: true;
    USER_SECRET_INVALID: true;
    USER_SECRET_NOT_FOUND: true;
    WEAK_PASSWORD: true;
    /** The account still owns resources of a registered kind (OwnedResourcesRegistry): `OWNS_REPOSITORIES`, ... */
    [code: `OWNS_${string}`]: true;
  }
}
export {};

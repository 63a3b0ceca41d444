/** The DomainError codes the packages module throws (issue 32 item 6). */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    PACKAGE_NOT_FOUND: true;
    PACKAGE_VERSION_NOT_FOUND: true;
    PACKAGE_FILE_NOT_FOUND: true;
    PACKAGE_OWNER_NOT_FOUND: true;
    PACKAGE_VERSION_EXISTS: true;
    PACKAGE_FILE_EXISTS: true;
    PACKAGE_FILE_MISSING: true;
    PACKAGE_NAME: true;
    PACKAGE_VERSION: true;
    PACKAGE_FILE_NAME: true;
    /** The caller lacks the access the registry route needs (401 with a Basic challenge, or 403). */
    PACKAGE_ACCESS: true;
    PACKAGE_LINK: true;
    PACKAGE_LINKED: true;
    PACKAGE_NOT_LINKED: true;
    PACKAGE_OWNER_MISMATCH: true;
    NPM_NAME: true;
    NPM_VERSION: true;
    NPM_VERSIONS: true;
    NPM_ATTACHMENTS: true;
    NPM_INTEGRITY: true;
    NPM_TAG: true;
    NPM_TAG_VERSION: true;
    NPM_LOGIN_NAME: true;
  }
}
export {};

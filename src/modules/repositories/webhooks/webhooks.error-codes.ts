/** DomainError codes of repository and organization webhooks (issue 49.5). */
declare module '../../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    HOOK_NOT_FOUND: true;
    HOOK_TYPE: true;
    HOOK_CONFIG: true;
    HOOK_CONTENT_TYPE: true;
    HOOK_URL: true;
  }
}
export {};

/** The DomainError codes the AI gateway throws (issue 32 item 6). */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    AI_BYOK_DISABLED: true;
    AI_CURSOR: true;
    AI_CURSOR_BOTH: true;
    AI_CURSOR_OFFSET: true;
    AI_NO_KEY: true;
    AI_PAGE_LIMIT: true;
    AI_PAGE_OFFSET: true;
    AI_PATH: true;
    AI_PROVIDER_EXISTS: true;
    AI_PROVIDER_NAME: true;
    AI_PROVIDER_NOT_FOUND: true;
    AI_PROVIDER_TYPE: true;
    AI_PROVIDER_URL: true;
    AI_SESSION_ID: true;
    AI_SESSION_NOT_FOUND: true;
  }
}
export {};

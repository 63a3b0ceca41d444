/** The DomainError codes the chats module throws (issue 32 item 6). */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    /** A chat file over CHAT_FILE_MAX_BYTES. */
    FILE_TOO_LARGE: true;
    /** A chats route without the `agents` experiment. */
    ROUTE_NOT_FOUND: true;
  }
}
export {};

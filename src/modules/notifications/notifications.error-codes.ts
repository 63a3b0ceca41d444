/** The DomainError codes the notifications module throws (issue 32 item 6). */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    INBOX_NOTIFICATION_NOT_FOUND: true;
    INVALID_CUSTOM_NOTIFICATION: true;
    INVALID_READ_STATUS: true;
    INVALID_UUID: true;
    UNKNOWN_TEMPLATE: true;
  }
}
export {};

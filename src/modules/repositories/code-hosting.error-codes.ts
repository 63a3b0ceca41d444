/** DomainError codes of the daily code-hosting API (issue 49): contents, commits, statuses, reviews, hooks, labels, LFS. */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    CONTENT_EXISTS: true;
    CONTENT_NOT_FOUND: true;
    CONTENT_PATH: true;
    CONTENT_SHA_MISMATCH: true;
    CONTENT_SHA_REQUIRED: true;
    LABEL_COLOR: true;
    LABEL_NAME: true;
    LABEL_NOT_FOUND: true;
    REVIEW_BODY: true;
    REVIEW_EVENT: true;
    REVIEW_FORBIDDEN: true;
    REVIEW_NOT_FOUND: true;
    REVIEW_OWN_PULL: true;
    STATUS_STATE: true;
    TEAM_ALREADY_ADDED: true;
    TEAM_NOT_ADDED: true;
  }
}
export {};

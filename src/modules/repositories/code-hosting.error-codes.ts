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
    LFS_BATCH: true;
    LFS_OBJECT_NOT_FOUND: true;
    LFS_OID: true;
    LFS_OID_MISMATCH: true;
    LFS_SIZE_MISMATCH: true;
    LFS_TOO_LARGE: true;
    LFS_LINK: true;
    MILESTONE_NOT_FOUND: true;
    MILESTONE_TITLE: true;
    MILESTONE_STATE: true;
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

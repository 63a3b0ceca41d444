/** DomainError codes of the daily code-hosting API (issue 49): contents, commits, statuses, reviews, hooks, labels, LFS. */
declare module '../../platform/errors/domain-error' {
  interface DomainErrorCodes {
    TEAM_ALREADY_ADDED: true;
    TEAM_NOT_ADDED: true;
  }
}
export {};

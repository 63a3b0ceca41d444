/** The rule itself belongs to the Coder dialect (src/api/coder/coder-csrf.rule.ts); login sets the cookie. */
export { CSRF_COOKIE, CSRF_HEADER } from '../../platform/http/credential-names';
export { CSRF_FAILURE, csrfSatisfied } from '../../api/coder/coder-csrf.rule';
export { keptCsrfToken, newCsrfToken } from '../../platform/http/csrf-token';

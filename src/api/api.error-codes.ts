/** The DomainError codes the API layer throws while it reads and checks requests (bodies, forms, CSRF, rate limits). */
declare module '../platform/errors/domain-error' {
  interface DomainErrorCodes {
    /** A body that cannot be read as its content type says. */
    BAD_BODY: true;
    /** A Content-Encoding whose data does not decode. */
    BAD_CONTENT_ENCODING: true;
    /** JSON nested deeper than the limit. */
    BODY_TOO_DEEP: true;
    /** A body over the route's limit (after decompression). */
    BODY_TOO_LARGE: true;
    /** Coder's field validation failed (`validations` in the body). */
    CODER_VALIDATION: true;
    /** A cookie-authenticated write without Coder's CSRF header. */
    CSRF: true;
    /** A cookie-authenticated Gitea API write without (401) or with a wrong (400) CSRF token. */
    GITEA_CSRF: true;
    /** Every slot for large bodies (npm publish documents) is taken: 503 with Retry-After. */
    LARGE_BODIES_BUSY: true;
    /** A form body where the route takes none. */
    FORM_NOT_ACCEPTED: true;
    MALFORMED_FORM: true;
    MALFORMED_JSON: true;
    MALFORMED_MULTIPART: true;
    /** A multipart body where the route takes none. */
    MULTIPART_NOT_ACCEPTED: true;
    /** The route takes multipart only. */
    MULTIPART_REQUIRED: true;
    /** A NUL character in a string field (PostgreSQL text cannot hold it). */
    NUL_CHARACTER: true;
    /** An OCS write without `OCS-APIRequest: true` (Nextcloud's CSRF rule). */
    OCS_CSRF: true;
    /** A query parameter or search term of a list is not valid (any dialect's list endpoints). */
    INVALID_QUERY: true;
    RATE_LIMITED: true;
    /** The client went away while the body was read. */
    REQUEST_ABORTED: true;
    /** More form or query parameters than the limit. */
    TOO_MANY_PARAMETERS: true;
    UNSUPPORTED_CONTENT_ENCODING: true;
    /** A DTO failed class-validator at the edge (`DTO_VALIDATION`); each dialect renders the fields. */
    VALIDATION: true;
  }
}
export {};

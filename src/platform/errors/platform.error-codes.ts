/** The DomainError codes the platform layer throws (blob storage, realtime origin checks). */
declare module './domain-error' {
  interface DomainErrorCodes {
    /** A blob key that is not a storage key devplane writes. */
    BLOB_KEY: true;
    /** The blob is not in the store. */
    BLOB_NOT_FOUND: true;
    /** A blob went over the caller's size limit while it was written. */
    BLOB_TOO_LARGE: true;
    /** The blob store (an S3 bucket) does not answer: a 503 in every dialect (issue 51.3). */
    BLOB_STORE_UNAVAILABLE: true;
    /** A blob's stream ended short of, or went past, the size announced for it (Content-Length). */
    BLOB_SIZE_MISMATCH: true;
    /** A PreconditionFailedError Coder renders as 417 Expectation Failed (`EXPECTATION_FAILED`). */
    EXPECTATION_FAILED: true;
    /** A browser WebSocket or event stream from an origin the server does not serve. */
    ORIGIN_NOT_ALLOWED: true;
    /** A request the server refuses while it drains for shutdown (platform/lifecycle/shutdown-drain.ts). */
    SHUTTING_DOWN: true;
  }
}
export {};

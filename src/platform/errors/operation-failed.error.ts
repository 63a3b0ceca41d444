/**
 * A failure that is not the client's fault but has a client-facing description, e.g. Coder's
 * "Failed to send custom notification". Dialects render it as 500 with that message; the cause is
 * logged with the request id and never sent to the client.
 */
export class OperationFailedError extends Error {
  constructor(
    readonly publicMessage: string,
    options: { cause?: unknown } = {},
  ) {
    super(publicMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OperationFailedError';
  }
}

/**
 * A failure that is not the client's fault: rendered as 500. The cause is logged, never sent;
 * `publicMessage` (from OperationFailedError) is what the client may read.
 */
export class InternalFailure {
  constructor(
    readonly cause: unknown,
    readonly publicMessage?: string,
  ) {}
}

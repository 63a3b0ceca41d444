/** A failure that is not the client's fault: rendered as 500 with the internal text hidden. */
export class InternalFailure {
  constructor(readonly cause: unknown) {}
}

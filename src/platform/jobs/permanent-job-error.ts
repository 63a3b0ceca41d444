/** Thrown by a job handler for a failure that no retry can fix: the job goes to `failed` at once. */
export class PermanentJobError extends Error {
  readonly permanent = true;
}

/**
 * The realtime hub's subjects and what each carries: one entry per subject family, added by the
 * module that publishes it through declaration merging (as `DomainErrorCodes`):
 *
 *   declare module '../../platform/realtime/realtime-subjects' {
 *     interface RealtimeSubjects { 'workspace-builds': BuildUpdateFrame }
 *   }
 *
 * A subject is made by `realtimeSubject(family, key?)` (`inbox:<user uuid>`), so publisher and
 * subscribers agree on the payload type at compile time; payloads still cross instances as JSON
 * (ClusterBus), so they stay plain data and below NOTIFY's 8000 bytes.
 */
export interface RealtimeSubjects {}

export type RealtimeSubjectFamily = keyof RealtimeSubjects & string;

declare const PAYLOAD: unique symbol;

/** A subject string that carries its payload type (only `realtimeSubject` makes one). */
export type RealtimeSubject<P> = string & { readonly [PAYLOAD]: P };

/** The payload type of a subject. */
export type SubjectPayload<S> = S extends RealtimeSubject<infer P> ? P : never;

/** `family` alone, or `family:key` (one subject per user, workspace, build...). */
export function realtimeSubject<F extends RealtimeSubjectFamily>(
  family: F,
  key?: string,
): RealtimeSubject<RealtimeSubjects[F]> {
  return (key === undefined ? family : `${family}:${key}`) as RealtimeSubject<RealtimeSubjects[F]>;
}

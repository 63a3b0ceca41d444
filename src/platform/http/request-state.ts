import type { Request } from 'express';

/**
 * What the request pipeline records on a request (its route's dialect, the caller, the parsed
 * credential, ...), kept in one object of a fixed shape under one property. Node's request objects
 * hold many properties already: adding one symbol property per fact cost more than the facts
 * themselves on a cached read (issue 10 item 14). Each slot is typed by the file that owns it.
 */
export interface RequestState {
  /** src/api/dialect.ts */
  dialect: unknown;
  /** src/api/dialect.ts (SSE routes) */
  sseApi: unknown;
  /** src/platform/http/request-caller.ts */
  caller: unknown;
  /** src/modules/auth/principal.ts */
  principal: unknown;
  /** src/modules/auth/strategies/presented-credential.ts (`null` = none; undefined = not parsed yet) */
  credential: unknown;
  /** src/modules/auth/strategies/credential-strategy.ts */
  response: unknown;
}

const STATE = Symbol('devplane:request-state');

export function requestState(req: Request): RequestState {
  const holder = req as unknown as Record<symbol, RequestState | undefined>;
  let state = holder[STATE];
  if (!state) {
    state = {
      dialect: undefined,
      sseApi: undefined,
      caller: undefined,
      principal: undefined,
      credential: undefined,
      response: undefined,
    };
    holder[STATE] = state;
  }
  return state;
}

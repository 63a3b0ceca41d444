/** Gitea paging: `page` is 1-based; `limit` defaults to 30 and is clamped to 50. */
export const GITEA_DEFAULT_PAGE_SIZE = 30;
export const GITEA_MAX_PAGE_SIZE = 50;

export interface GiteaPaging {
  page: number;
  limit: number;
  offset: number;
}

function positiveInt(value: unknown): number {
  const parsed = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : 0;
  return Number.isSafeInteger(parsed) ? parsed : 0;
}

export function giteaPaging(query: { page?: unknown; limit?: unknown }): GiteaPaging {
  const page = Math.max(1, positiveInt(query.page));
  let limit = positiveInt(query.limit);
  if (limit <= 0) limit = GITEA_DEFAULT_PAGE_SIZE;
  if (limit > GITEA_MAX_PAGE_SIZE) limit = GITEA_MAX_PAGE_SIZE;
  return { page, limit, offset: (page - 1) * limit };
}

/** A page of results; `@GiteaPaged()` turns it into the body plus `X-Total-Count` and `Link`. */
export class GiteaPage<T> {
  constructor(
    readonly items: T[],
    readonly total: number,
    readonly paging: GiteaPaging,
    /** The body around the items when it is not the bare array (`/repos/search`: `{ok, data}`). */
    readonly wrap?: (items: T[]) => unknown,
  ) {}

  /** Serialised only when a route forgot `@GiteaPaged()`: a 500 in every test of that route. */
  toJSON(): never {
    throw new Error('GiteaPage returned by a route without @GiteaPaged()');
  }
}

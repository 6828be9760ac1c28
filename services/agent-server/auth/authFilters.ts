// What an `auth.on(…)` handler of a custom auth module may return to narrow what a user sees:
// per metadata key, a string (equal), `{$eq: string}` (equal) or `{$contains: string | string[]}`
// (the metadata value is an array holding it, or all of them). Every key must match. The same
// semantics as the LangGraph JS server (langgraph-api src/auth/index.mts `isAuthMatching`); the
// PostgreSQL store compiles them to SQL (store/postgresRecordStore.ts) with the same meaning.

export type AuthFilterValue = string | { $eq?: string; $contains?: string | string[] };
export type AuthFilters = Record<string, AuthFilterValue>;

/** Whether a resource's metadata passes the filters (no filters: everything passes). */
export function isAuthMatching(
  metadata: Record<string, unknown> | undefined,
  filters: AuthFilters | undefined,
): boolean {
  if (!filters) return true;
  for (const [key, filter] of Object.entries(filters)) {
    const value = metadata?.[key];
    if (typeof filter === 'object' && filter !== null) {
      if (filter.$eq !== undefined) {
        if (value !== filter.$eq) return false;
      } else if (filter.$contains !== undefined) {
        if (!Array.isArray(value)) return false;
        const wanted = Array.isArray(filter.$contains) ? filter.$contains : [filter.$contains];
        if (!wanted.every((w) => value.includes(w))) return false;
      }
    } else if (value !== filter) {
      return false;
    }
  }
  return true;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** Checks what a handler returned is a filter object LangGraph understands; anything else is the module's mistake. */
export function checkAuthFilters(result: object): AuthFilters {
  for (const [key, filter] of Object.entries(result)) {
    const ok =
      isString(filter) ||
      (typeof filter === 'object' &&
        filter !== null &&
        Object.keys(filter).every((op) => op === '$eq' || op === '$contains') &&
        (filter.$eq === undefined || isString(filter.$eq)) &&
        (filter.$contains === undefined ||
          isString(filter.$contains) ||
          (Array.isArray(filter.$contains) && filter.$contains.every(isString))));
    if (!ok)
      throw new Error(
        `auth handler returned an invalid filter for "${key}": use a string, {$eq: string} or {$contains: string | string[]}`,
      );
  }
  return result as AuthFilters;
}

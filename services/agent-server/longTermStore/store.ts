// The long-term store (LangGraph's "store": memories kept across threads) as both backends
// (memory, PostgreSQL) implement it: items under a namespace (a list of labels) and a key, each
// in a workspace, with an optional TTL and, where the config file names an index, embeddings for
// semantic search. What the two backends share lives here: the operations' shapes, the filter
// language of search (`{field: value}` or `{field: {$op: operand}}`) and the order of results.
import { createHash } from 'node:crypto';
import { errors } from '../../../platform/errors.ts';

export interface StoreItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  /** Set on search results when a query was embedded: cosine similarity, null for an item with no embedding. */
  score?: number | null;
}

export interface PutOptions {
  /** Minutes the item lives; null: forever; absent: the config file's default TTL. */
  ttl?: number | null;
  /** What of the value is embedded: the index's fields (absent), none (false) or these paths. */
  index?: false | string[];
}

export interface SearchOptions {
  filter?: StoreFilter;
  limit: number;
  offset: number;
  /** Ranks by similarity to this text where an index is configured; ignored otherwise (as LangGraph does). */
  query?: string;
  /** Restart the TTL of the items returned; absent: the config file's `refresh_on_read`. */
  refreshTtl?: boolean;
}

export interface NamespaceOptions {
  /** Labels the namespace starts with; `*` matches any label. */
  prefix?: string[];
  /** Labels the namespace ends with; `*` matches any label. */
  suffix?: string[];
  /** Namespaces cut to this many labels (the distinct ones). */
  maxDepth?: number;
  limit: number;
  offset: number;
}

/** One backend holds every workspace's items; each call names the workspace it acts in. */
export interface LongTermStore {
  get(workspaceId: string, namespace: string[], key: string, refreshTtl?: boolean): Promise<StoreItem | null>;
  put(
    workspaceId: string,
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    options?: PutOptions,
  ): Promise<void>;
  delete(workspaceId: string, namespace: string[], key: string): Promise<void>;
  search(workspaceId: string, namespacePrefix: string[], options: SearchOptions): Promise<StoreItem[]>;
  listNamespaces(workspaceId: string, options: NamespaceOptions): Promise<string[][]>;
  /** Deletes the expired items of every workspace; how many. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

// ---- the filter language ----

export const FILTER_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export type StoreFilter = Record<string, unknown>;

/** One condition on a top-level field of the value. */
export interface FieldCondition {
  field: string;
  op: FilterOperator;
  operand: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A filter as conditions: `{field: value}` is `$eq`; an object whose keys start with `$` is a set
 * of operators, all of which must hold. An unknown operator, or an operand of the wrong kind, is
 * a 400 INVALID_FILTER naming the field (a grammar the body's JSON schema cannot hold).
 */
export function filterConditions(filter: StoreFilter | undefined): FieldCondition[] {
  if (!filter) return [];
  return Object.entries(filter).flatMap(([field, wanted]): FieldCondition[] => {
    if (!isPlainObject(wanted) || !Object.keys(wanted).some((k) => k.startsWith('$')))
      return [{ field, op: '$eq', operand: wanted }];
    return Object.entries(wanted).map(([op, operand]) => {
      const where = `filter.${field}.${op}`;
      if (!(FILTER_OPERATORS as readonly string[]).includes(op))
        throw errors.invalidFilter(`${where}: unknown operator; use one of ${FILTER_OPERATORS.join(', ')}`);
      if ((op === '$in' || op === '$nin') && !Array.isArray(operand))
        throw errors.invalidFilter(`${where} must be an array of values`);
      if (['$gt', '$gte', '$lt', '$lte'].includes(op) && typeof operand !== 'number' && typeof operand !== 'string')
        throw errors.invalidFilter(`${where} must be a number or a string`);
      return { field, op: op as FilterOperator, operand };
    });
  });
}

/** JSON equality as PostgreSQL's jsonb `=` has it: objects whatever their keys' order, arrays in order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Whether a value passes the conditions (a missing field passes only `$ne` and `$nin`). */
export function matchesConditions(value: Record<string, unknown>, conditions: FieldCondition[]): boolean {
  return conditions.every(({ field, op, operand }) => {
    const has = Object.hasOwn(value, field);
    const actual = value[field];
    switch (op) {
      case '$eq':
        return has && jsonEqual(actual, operand);
      case '$ne':
        return !has || !jsonEqual(actual, operand);
      case '$in':
        return has && (operand as unknown[]).some((o) => jsonEqual(actual, o));
      case '$nin':
        return !has || !(operand as unknown[]).some((o) => jsonEqual(actual, o));
      default: {
        // Numbers with numbers, strings with strings (by code unit, as PostgreSQL's "C" collation).
        if (typeof actual !== typeof operand) return false;
        const [x, y] = [actual as number | string, operand as number | string];
        return op === '$gt' ? x > y : op === '$gte' ? x >= y : op === '$lt' ? x < y : x <= y;
      }
    }
  });
}

// ---- namespaces ----

/** Namespace labels: no "." (the SDKs join a namespace with it in GET's query string), none empty, no NUL. */
export const LABEL_PATTERN = '^[^.\\u0000]+$';
/** The longest label (each is an entry of PostgreSQL's GIN index on namespaces). */
export const MAX_LABEL_LENGTH = 256;

/** Refuses a namespace a backend cannot hold (routes refuse it first, by their schemas; a graph's own batch() may not). */
export function checkNamespace(namespace: string[], what = 'namespace'): void {
  if (namespace.length === 0) throw errors.validation(`${what} must have at least one label`);
  for (const label of namespace)
    if (typeof label !== 'string' || !new RegExp(LABEL_PATTERN, 'u').test(label) || label.length > MAX_LABEL_LENGTH)
      throw errors.validation(
        `${what} label ${JSON.stringify(label)} must be 1 to ${MAX_LABEL_LENGTH} characters, without "." or NUL`,
      );
}

/** Whether `namespace` starts (or ends) with `labels`, `*` matching any one label. */
export function namespaceMatches(namespace: string[], labels: string[], at: 'prefix' | 'suffix'): boolean {
  if (labels.length > namespace.length) return false;
  const from = at === 'prefix' ? 0 : namespace.length - labels.length;
  return labels.every((label, i) => label === '*' || namespace[from + i] === label);
}

/** Lexicographic order of label lists by code unit (PostgreSQL's text[] order under the "C" collation). */
export function compareNamespaces(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** An item's identity within its workspace: the hash of its namespace and key (unbounded texts stay out of indexes). */
export function itemHash(namespace: string[], key: string): Buffer {
  return createHash('sha256')
    .update(JSON.stringify([namespace, key]))
    .digest();
}

/** Search order: by score when ranked, else newest update first; then namespace and key, so pages are stable. */
export function compareResults(a: StoreItem, b: StoreItem): number {
  if (a.score !== undefined || b.score !== undefined) {
    const [x, y] = [a.score ?? Number.NEGATIVE_INFINITY, b.score ?? Number.NEGATIVE_INFINITY];
    if (x !== y) return y - x;
  }
  const byUpdate = b.updatedAt.getTime() - a.updatedAt.getTime();
  if (byUpdate !== 0) return byUpdate;
  return compareNamespaces(a.namespace, b.namespace) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** When an item of this TTL (minutes) written or refreshed at `now` (ms) expires; null when it does not. */
export function expiryOf(now: number, ttlMinutes: number | null): Date | null {
  return ttlMinutes === null ? null : new Date(now + ttlMinutes * 60_000);
}

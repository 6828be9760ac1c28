// The read routes' one cursor codec. A cursor is the sort key of the last item returned, as
// base64url JSON, opaque to clients: a page starts strictly after it, so pages neither skip nor
// repeat items while new ones arrive (no offsets). Two key shapes are issued, and both decode:
// - /runs/query (v1 and v2): [1, order, start_time, id], a versioned array (encodeRunCursor);
// - the v2 trace and thread routes: an object of the route's sort key ({t, id}, {s, o, v, id}…)
//   that the route reads back (decodeCursor with a reader).
import { errors } from '../../../platform/errors.ts';
import type { RunPosition } from '../../../projections/runs/runQueries.ts';
import { toUuid } from '../../../platform/ids.ts';

export type RunOrder = 'asc' | 'desc';

export function encodeCursor(key: Record<string, string | number> | readonly unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The JSON inside a cursor; throws when it holds none. */
const cursorJson = (cursor: string): unknown => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));

/** The key inside an object cursor this API issued; 400 for anything else. `read` checks and converts it. */
export function decodeCursor<T>(cursor: unknown, read: (raw: Record<string, unknown>) => T | null): T | undefined {
  if (cursor === undefined || cursor === null || cursor === '') return undefined;
  let key: T | null = null;
  try {
    const raw = cursorJson(String(cursor));
    if (raw && typeof raw === 'object') key = read(raw as Record<string, unknown>);
  } catch {
    key = null;
  }
  if (key === null) throw errors.badRequest('cursor is not a next_cursor this API returned');
  return key;
}

/** Reads a (microseconds, UUID) object cursor key. */
export function timeIdKey(raw: Record<string, unknown>): { time: number; id: string } | null {
  const id = typeof raw.id === 'string' ? toUuid(raw.id) : null;
  return Number.isSafeInteger(raw.t) && id ? { time: raw.t as number, id } : null;
}

/** A /runs/query cursor: the (start_time, id) of the last run returned and the order they were returned in. */
export function encodeRunCursor(position: RunPosition, order: RunOrder): string {
  return encodeCursor([1, order, position.startTime, position.id]);
}

export function decodeRunCursor(cursor: string, order: RunOrder, field = 'cursor'): RunPosition {
  let parts: unknown;
  try {
    parts = cursorJson(cursor);
  } catch {
    parts = null;
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 4 ||
    parts[0] !== 1 ||
    !Number.isSafeInteger(parts[2]) ||
    typeof parts[3] !== 'string' ||
    !toUuid(parts[3])
  )
    throw errors.badRequest(`${field} is not a cursor this service issued`);
  if (parts[1] !== order)
    throw errors.badRequest(`${field} was issued for order "${parts[1]}"; send the same order to continue`);
  return { startTime: parts[2] as number, id: toUuid(parts[3])! };
}

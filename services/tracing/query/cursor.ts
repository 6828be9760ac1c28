// Opaque keyset cursors for /runs/query: the (start_time, id) of the last run returned and the
// order they were returned in. A page starts strictly after it, so pages neither skip nor
// repeat runs while new runs arrive (no offsets).
import { errors } from '../../../platform/errors.ts';
import type { RunPosition } from '../../../projections/runs/runQueries.ts';
import { toUuid } from '../../../platform/ids.ts';

export type RunOrder = 'asc' | 'desc';

export function encodeCursor(position: RunPosition, order: RunOrder): string {
  return Buffer.from(JSON.stringify([1, order, position.startTime, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string, order: RunOrder, field = 'cursor'): RunPosition {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parts = null;
  }
  if (!Array.isArray(parts) || parts.length !== 4 || parts[0] !== 1 || !Number.isSafeInteger(parts[2]) || typeof parts[3] !== 'string' || !toUuid(parts[3]))
    throw errors.badRequest(`${field} is not a cursor this service issued`);
  if (parts[1] !== order) throw errors.badRequest(`${field} was issued for order "${parts[1]}"; send the same order to continue`);
  return { startTime: parts[2] as number, id: toUuid(parts[3])! };
}

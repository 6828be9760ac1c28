// The read routes' one cursor codec (services/tracing/query/cursor.ts): the cursors the two
// codecs it replaced issued still decode, and what each refused is still the same 400. The
// literals are what those codecs returned (query/cursor.ts and routes/traces.ts as of 6dbada8).
import { describe, expect, test } from 'vitest';
import {
  decodeCursor,
  decodeRunCursor,
  encodeCursor,
  encodeRunCursor,
  timeIdKey,
} from '../../../../services/tracing/query/cursor.ts';

const id = '0190a4f2-7b1c-7d3e-8f00-123456789abc';
const at = 1_700_000_000_123_456;
/** /runs/query's: [1, "desc", start_time, id]. */
const issuedRunCursor = 'WzEsImRlc2MiLDE3MDAwMDAwMDAxMjM0NTYsIjAxOTBhNGYyLTdiMWMtN2QzZS04ZjAwLTEyMzQ1Njc4OWFiYyJd';
/** The v2 threads' and an earlier release's traces cursor: {t, id}. */
const issuedTimeIdCursor = 'eyJ0IjoxNzAwMDAwMDAwMTIzNDU2LCJpZCI6IjAxOTBhNGYyLTdiMWMtN2QzZS04ZjAwLTEyMzQ1Njc4OWFiYyJ9';
/** The v2 traces cursor: {s, o, v, id}. */
const issuedSortCursor =
  'eyJzIjoibGF0ZW5jeSIsIm8iOiJhc2MiLCJ2IjoxNTAwLCJpZCI6IjAxOTBhNGYyLTdiMWMtN2QzZS04ZjAwLTEyMzQ1Njc4OWFiYyJ9';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return { status: (err as { statusCode: number }).statusCode, message: (err as Error).message };
  }
  throw new Error('not refused');
};

describe('cursors issued before the codecs were one still decode, and are issued the same', () => {
  test('/runs/query', () => {
    expect(decodeRunCursor(issuedRunCursor, 'desc')).toEqual({ startTime: at, id });
    expect(encodeRunCursor({ startTime: at, id }, 'desc')).toBe(issuedRunCursor);
  });

  test('the v2 trace and thread routes', () => {
    expect(decodeCursor(issuedTimeIdCursor, timeIdKey)).toEqual({ time: at, id });
    expect(encodeCursor({ t: at, id })).toBe(issuedTimeIdCursor);
    expect(decodeCursor(issuedSortCursor, (raw) => raw)).toEqual({ s: 'latency', o: 'asc', v: 1500, id });
    expect(encodeCursor({ s: 'latency', o: 'asc', v: 1500, id })).toBe(issuedSortCursor);
    expect(decodeCursor(undefined, timeIdKey)).toBeUndefined();
    expect(decodeCursor('', timeIdKey)).toBeUndefined();
  });
});

test("each route family refuses the other's cursors and junk with the 400 it answered before", () => {
  const runs = { status: 400, message: 'cursor is not a cursor this service issued' };
  expect(refusal(() => decodeRunCursor(issuedTimeIdCursor, 'desc'))).toEqual(runs);
  expect(refusal(() => decodeRunCursor('not a cursor', 'desc'))).toEqual(runs);
  expect(refusal(() => decodeRunCursor(issuedRunCursor, 'asc'))).toEqual({
    status: 400,
    message: 'cursor was issued for order "desc"; send the same order to continue',
  });
  const v2 = { status: 400, message: 'cursor is not a next_cursor this API returned' };
  expect(refusal(() => decodeCursor(issuedRunCursor, timeIdKey))).toEqual(v2);
  expect(refusal(() => decodeCursor('%%%', timeIdKey))).toEqual(v2);
  expect(refusal(() => decodeCursor(issuedSortCursor, timeIdKey))).toEqual(v2);
});

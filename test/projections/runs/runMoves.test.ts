// What the runs projector writes besides a batch's rows (moves()): a run_keys row for each run at
// a new place in `runs`, and a tombstone at the place a run left, ordered between its versions;
// a run_threads row for each run naming a thread at a new place, or a new thread at its place.
import { expect, test } from 'vitest';
import { moves } from '../../../projections/runs/runsWriter.ts';
import { emptyRow } from '../../../projections/runs/runRow.ts';
import type { RunRow } from '../../../projections/shared/runRow.ts';

const T = '00000000-0000-4000-8000-00000000000a';
const TRACE = '00000000-0000-4000-8000-0000000000a1';
const P1 = '00000000-0000-4000-8000-0000000000b1';
const P2 = '00000000-0000-4000-8000-0000000000b2';
const row = (id: string, fields: Partial<RunRow>): RunRow => ({ ...emptyRow(T, TRACE, id), has_post: 1, ...fields });
const key = (r: RunRow) => `${T}/${TRACE}/${r.id}`;

test('a new run gets its place; a run that stays where it was gets nothing more', () => {
  const fresh = row('00000000-0000-4000-8000-000000000001', { session_id: P1, start_time: 5, version: 70_000 });
  const staying = row('00000000-0000-4000-8000-000000000002', { session_id: P1, start_time: 6, version: 70_001 });
  const stayedBefore = { ...staying, version: 1, outputs: '' };
  const rolledUp = row('00000000-0000-4000-8000-000000000003', { session_id: P1, start_time: 7, version: 70_001 });
  const dirty = new Map([
    [key(fresh), fresh],
    [key(staying), staying],
    [key(rolledUp), rolledUp],
  ]);
  const stored = new Map<string, RunRow | null>([
    [key(fresh), null],
    [key(staying), stayedBefore],
  ]); // rolledUp: usage only
  expect(moves(dirty, stored)).toEqual({
    places: [{ tenant_id: T, trace_id: TRACE, id: fresh.id, session_id: P1, is_root: 0, start_time: 5 }],
    tombstones: [],
    threads: [],
  });
});

test('a run whose project or start time changed: its new place, and at the old one a tombstone between the two versions', () => {
  const id = '00000000-0000-4000-8000-000000000004';
  // stored by a patch before the post: no project, no start time
  const early = row(id, { has_post: 0, version: 65_537 });
  const posted = row(id, { session_id: P1, start_time: 9, version: 131_073 });
  const first = moves(new Map([[key(posted), posted]]), new Map([[key(posted), early]]));
  expect(first.places).toEqual([{ tenant_id: T, trace_id: TRACE, id, session_id: P1, is_root: 0, start_time: 9 }]);
  expect(first.tombstones).toEqual([{ ...early, has_post: 0, version: 131_072 }]);

  const moved = row(id, { session_id: P2, start_time: 9, version: 196_609 });
  const second = moves(new Map([[key(moved), moved]]), new Map([[key(moved), posted]]));
  expect(second.places.map((p) => p.session_id)).toEqual([P2]);
  const [tombstone] = second.tombstones;
  expect({ ...tombstone, version: 0 }).toEqual({ ...posted, has_post: 0, version: 0 }); // the old place's row, hidden
  expect(tombstone!.version).toBeGreaterThan(posted.version);
  expect(tombstone!.version).toBeLessThan(moved.version);
});

test('a run_threads row for each run that names a thread at a new place or a new thread at its place, and for no other', () => {
  const id = (n: number) => `00000000-0000-4000-8000-00000000001${n}`;
  const fresh = row(id(0), { session_id: P1, start_time: 5, thread_id: 'a', version: 70_000 });
  const noThread = row(id(1), { session_id: P1, start_time: 5, version: 70_000 });
  const same = row(id(2), { session_id: P1, start_time: 6, thread_id: 'a', version: 70_001 });
  const renamed = row(id(3), { session_id: P1, start_time: 7, thread_id: 'b', version: 70_001 });
  const moved = row(id(4), { session_id: P2, start_time: 8, thread_id: 'a', version: 70_001 });
  const dropped = row(id(5), { session_id: P1, start_time: 9, thread_id: '', version: 70_001 });
  const posted = row(id(6), { session_id: P1, start_time: 3, thread_id: 'a', version: 70_001 });
  const rolledUp = row(id(7), { session_id: P1, start_time: 4, thread_id: 'a', version: 70_001 });
  const dirty = new Map([fresh, noThread, same, renamed, moved, dropped, posted, rolledUp].map((r) => [key(r), r]));
  const stored = new Map<string, RunRow | null>([
    [key(fresh), null],
    [key(noThread), null],
    [key(same), { ...same, version: 1 }],
    [key(renamed), { ...renamed, thread_id: 'a', version: 1 }],
    [key(moved), { ...moved, session_id: P1, version: 1 }],
    [key(dropped), { ...dropped, thread_id: 'a', version: 1 }],
    // a patch stored before the post, at the same place and thread: the post still gets its row
    // only if its place is new; here it is the same, and the patch's row was written then
    [key(posted), { ...posted, has_post: 0, version: 1 }],
  ]);
  const threadRow = (r: RunRow) => ({
    tenant_id: T,
    thread_id: r.thread_id,
    session_id: r.session_id,
    is_root: r.is_root,
    start_time: r.start_time,
    id: r.id,
  });
  expect(moves(dirty, stored).threads).toEqual([threadRow(fresh), threadRow(renamed), threadRow(moved)]);
});

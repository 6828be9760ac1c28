// A trace as the `traces` read model stores it (shared/traceRow.ts), computed from all the runs of
// the trace the runs projector holds in memory.
import type { RunRow } from '../shared/runRow.ts';
import { NO_USAGE, ownUsageOf, type Usage } from '../shared/usage.ts';
import type { TracePlacement, TraceRow } from '../shared/traceRow.ts';

const USAGE_KEYS = Object.keys(NO_USAGE) as Array<keyof Usage>;
const addUsage = (into: Usage, u: Usage) => {
  for (const k of USAGE_KEYS) into[k] += u[k];
};

const byName = (counts: Map<string, number>): Array<[string, number]> =>
  [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The project, start time and thread of a trace's row (as traceRow gives them), null while it has no row. */
export function tracePlacement(traceId: string, runs: Map<string, RunRow>): TracePlacement | null {
  let head: RunRow | undefined = runs.get(traceId);
  if (!head || head.has_post === 0) {
    head = undefined;
    for (const run of runs.values()) if (run.has_post !== 0 && (!head || run.start_time < head.start_time)) head = run;
  }
  return head ? { session: head.session_id, start: head.start_time, thread: traceThread(traceId, runs) } : null;
}

/**
 * A trace's thread: its root's, else that of its earliest run (by start time, then id) that names
 * one. Not the first in the order the runs are held: a trace loaded back from ClickHouse holds them
 * in another order, and the projector must find the thread its row was written under.
 */
function traceThread(traceId: string, runs: Map<string, RunRow>): string {
  const root = runs.get(traceId);
  if (root && root.has_post !== 0 && root.thread_id) return root.thread_id;
  let first: RunRow | undefined;
  for (const run of runs.values())
    if (
      run.has_post !== 0 &&
      run.thread_id &&
      (!first || run.start_time < first.start_time || (run.start_time === first.start_time && run.id < first.id))
    )
      first = run;
  return first?.thread_id ?? '';
}

export function traceRow(tenantId: string, traceId: string, runs: Map<string, RunRow>): TraceRow | null {
  let root: RunRow | undefined = runs.get(traceId);
  if (root && root.has_post === 0) root = undefined;
  let earliest: RunRow | undefined;
  let version = 0;
  let lastStart = 0;
  let firstToken: number | null = null;
  let errors = 0;
  const runTypes = new Map<string, number>();
  const statuses = new Map<string, number>();
  const usage = { ...NO_USAGE };
  let count = 0;
  for (const run of runs.values()) {
    if (run.has_post === 0) continue; // a patch whose post has not arrived is not a run yet
    count++;
    version = Math.max(version, run.version);
    lastStart = Math.max(lastStart, run.start_time);
    if (run.first_token_time !== null && (firstToken === null || run.first_token_time < firstToken))
      firstToken = run.first_token_time;
    if (run.status === 'error') errors++;
    runTypes.set(run.run_type, (runTypes.get(run.run_type) ?? 0) + 1);
    statuses.set(run.status, (statuses.get(run.status) ?? 0) + 1);
    const own = ownUsageOf(run);
    if (own) addUsage(usage, own);
    if (!earliest || run.start_time < earliest.start_time) earliest = run;
  }
  const head = root ?? earliest;
  if (!head) return null;
  // By name, not in the order the runs are held: a trace loaded back from ClickHouse (after an
  // eviction, a restart, a batch read again) holds them in another order than it merged them.
  const types = byName(runTypes);
  const states = byName(statuses);
  return {
    tenant_id: tenantId,
    trace_id: traceId,
    session_id: head.session_id,
    thread_id: traceThread(traceId, runs),
    name: head.name,
    run_type: head.run_type,
    status: head.status,
    start_time: head.start_time,
    end_time: head.end_time,
    first_token_time: firstToken,
    last_run_start_time: lastStart,
    run_count: count,
    error_count: errors,
    run_types: types.map(([name]) => name),
    run_type_counts: types.map(([, n]) => n),
    statuses: states.map(([name]) => name),
    status_counts: states.map(([, n]) => n),
    ...usage,
    tags: head.tags,
    has_root: root ? 1 : 0,
    version,
  };
}

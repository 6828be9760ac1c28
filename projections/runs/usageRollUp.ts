// The roll-up of usage from runs to their ancestors: a run's usage columns are its own usage plus
// that of all its descendants (shared/usage.ts).
import type { RunRow } from '../shared/runRow.ts';
import { copiedUsage, NO_USAGE, ownUsageOf, type Usage } from '../shared/usage.ts';

const USAGE_KEYS = Object.keys(NO_USAGE) as Array<keyof Usage>;
const addUsage = (into: Usage, u: Usage) => {
  for (const k of USAGE_KEYS) into[k] += u[k];
};

/**
 * Sets every run's usage columns to its own usage plus that of all its descendants. Returns the
 * runs whose columns changed, as new rows carrying `version` (newer than anything they had:
 * the trace's newest op version), so the replacing table keeps them.
 */
export function rollUpUsage(runs: Map<string, RunRow>, version: number): RunRow[] {
  const totals = new Map<string, Usage>();
  for (const run of runs.values()) {
    const own = ownUsageOf(run);
    if (!own) continue;
    // Walk up the ancestors (bounded, so a malformed parent cycle cannot hang the projector).
    let current: RunRow | undefined = run;
    for (let depth = 0; current && depth < 10_000; depth++) {
      let t = totals.get(current.id);
      if (!t) totals.set(current.id, (t = { ...NO_USAGE }));
      addUsage(t, own);
      current = current.parent_run_id ? runs.get(current.parent_run_id) : undefined;
      if (current === run) break;
    }
  }
  const changed: RunRow[] = [];
  for (const run of runs.values()) {
    const t = totals.get(run.id) ?? NO_USAGE;
    if (USAGE_KEYS.every((k) => run[k] === t[k])) continue;
    const updated: RunRow = copiedUsage(run, { ...run, ...t, version: Math.max(run.version, version) });
    runs.set(run.id, updated);
    changed.push(updated);
  }
  return changed;
}

// Token usage and cost as the read models keep them: the columns of a run row (its own and its
// descendants'), of a trace row (the sum over its runs) and of thread summaries; and a run's own
// usage (its `usage` column, JSON) parsed once per row object. Shared by the runs, traces and
// threads models: the runs projector sets it, the trace rows sum it, the readers read it back.

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_cost: number;
  completion_cost: number;
  total_cost: number;
}

export const NO_USAGE: Usage = {
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  prompt_cost: 0,
  completion_cost: 0,
  total_cost: 0,
};

/** The usage columns of a ClickHouse row, named `<prefix><field>` (e.g. `sum_total_tokens`). */
export function usageFromRow(r: Record<string, unknown>, prefix = ''): Usage {
  const n = (field: keyof Usage) => Number(r[prefix + field] ?? 0);
  return {
    prompt_tokens: n('prompt_tokens'),
    completion_tokens: n('completion_tokens'),
    total_tokens: n('total_tokens'),
    prompt_cost: n('prompt_cost'),
    completion_cost: n('completion_cost'),
    total_cost: n('total_cost'),
  };
}

export const formatUsage = (u: Usage | null): string => (u ? JSON.stringify(u) : '');
export const parseUsage = (text: string): Usage | null => (text === '' ? null : (JSON.parse(text) as Usage));

/**
 * A row's own usage (its `usage` column) parsed, kept per row object: rows are replaced, never
 * mutated, once merged, so an object's `usage` never changes after setOwnUsage or a first read.
 */
const parsedUsage = new WeakMap<{ usage: string }, Usage | null>();

export function ownUsageOf(row: { usage: string }): Usage | null {
  if (row.usage === '') return null;
  let u = parsedUsage.get(row);
  if (u === undefined) parsedUsage.set(row, (u = parseUsage(row.usage)));
  return u;
}

/** Sets the row's `usage` column from its own usage, remembered parsed (not parsed back for the roll-up). */
export function setOwnUsage(row: { usage: string }, usage: Usage | null): void {
  row.usage = formatUsage(usage);
  if (usage) parsedUsage.set(row, usage);
  else parsedUsage.delete(row);
}

/** A copy of `from` (a new object, same `usage`) keeps its parsed usage. */
export function copiedUsage<T extends { usage: string }>(from: { usage: string }, copy: T): T {
  const u = parsedUsage.get(from);
  if (u !== undefined && copy.usage === from.usage) parsedUsage.set(copy, u);
  return copy;
}

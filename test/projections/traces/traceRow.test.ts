import { expect, test } from 'vitest';
import { emptyRow } from '../../../projections/runs/runRow.ts';
import type { RunRow } from '../../../projections/shared/runRow.ts';
import { rollUpUsage } from '../../../projections/runs/usageRollUp.ts';
import { traceRow } from '../../../projections/traces/traceRow.ts';

const run = (id: string, parent: string | null, o: Partial<RunRow> = {}): RunRow => ({
  ...emptyRow('t', 'root', id),
  parent_run_id: parent,
  has_post: 1,
  run_type: 'chain',
  status: 'success',
  start_time: 10,
  version: 1,
  ...o,
});
const usage = (total: number, cost = 0) =>
  JSON.stringify({
    prompt_tokens: total - 1,
    completion_tokens: 1,
    total_tokens: total,
    prompt_cost: 0,
    completion_cost: cost,
    total_cost: cost,
  });

test('usage rolls up to every ancestor; only changed rows come back, with the newer version', () => {
  const runs = new Map<string, RunRow>([
    ['root', run('root', null)],
    ['a', run('a', 'root')],
    ['l1', run('l1', 'a', { run_type: 'llm', usage: usage(10, 0.25) })],
    ['l2', run('l2', 'root', { run_type: 'llm', usage: usage(5) })],
    ['quiet', run('quiet', 'root')],
  ]);
  const changed = rollUpUsage(runs, 99);
  expect(changed.map((r) => r.id).sort()).toEqual(['a', 'l1', 'l2', 'root']);
  expect(runs.get('root')!.total_tokens).toBe(15);
  expect(runs.get('root')!.total_cost).toBe(0.25);
  expect(runs.get('a')!.total_tokens).toBe(10);
  expect(runs.get('l2')!.total_tokens).toBe(5);
  expect(changed.every((r) => r.version === 99)).toBe(true);
  expect(rollUpUsage(runs, 100)).toEqual([]); // nothing changed: nothing to write
});

test('a parent cycle does not hang the roll-up', () => {
  const runs = new Map<string, RunRow>([
    ['x', run('x', 'y', { run_type: 'llm', usage: usage(3) })],
    ['y', run('y', 'x')],
  ]);
  rollUpUsage(runs, 2);
  expect(runs.get('x')!.total_tokens).toBe(3);
});

test('a trace row sums its runs and takes its head from the root', () => {
  const runs = new Map<string, RunRow>([
    ['root', run('root', null, { name: 'agent', start_time: 100, end_time: 900, thread_id: 'th', tags: ['t1'] })],
    ['e', run('e', 'root', { status: 'error', start_time: 200, first_token_time: 250 })],
    ['l', run('l', 'root', { run_type: 'llm', start_time: 300, usage: usage(7, 0.5), version: 5 })],
    ['orphan-patch', run('orphan-patch', 'root', { has_post: 0, start_time: 999 })],
  ]);
  const t = traceRow('t', 'root', runs)!;
  expect(t).toMatchObject({
    name: 'agent',
    start_time: 100,
    end_time: 900,
    thread_id: 'th',
    run_count: 3,
    error_count: 1,
    has_root: 1,
    total_tokens: 7,
    total_cost: 0.5,
    last_run_start_time: 300,
    first_token_time: 250,
    version: 5,
    tags: ['t1'],
  });
  expect(Object.fromEntries(t.run_types.map((k, i) => [k, t.run_type_counts[i]]))).toEqual({ chain: 2, llm: 1 });
  expect(Object.fromEntries(t.statuses.map((k, i) => [k, t.status_counts[i]]))).toEqual({ success: 2, error: 1 });
});

test('a trace row is the same whatever order its runs are held in (a trace loaded back from ClickHouse holds them by id)', () => {
  const held = [
    run('root', null, { run_type: 'chain', status: 'pending' }),
    run('b', 'root', { run_type: 'tool', status: 'success', start_time: 200 }),
    run('a', 'root', { run_type: 'llm', status: 'error', start_time: 300 }),
  ];
  const inOrder = traceRow('t', 'root', new Map(held.map((r) => [r.id, r])))!;
  const reversed = traceRow('t', 'root', new Map(held.toReversed().map((r) => [r.id, r])))!;
  expect(reversed).toEqual(inOrder);
  expect(inOrder).toMatchObject({
    run_types: ['chain', 'llm', 'tool'],
    run_type_counts: [1, 1, 1],
    statuses: ['error', 'pending', 'success'],
    status_counts: [1, 1, 1],
  });
});

test('before the root arrives the earliest run stands in; a trace of patches only has no row', () => {
  const runs = new Map<string, RunRow>([['c', run('c', 'root', { name: 'child', start_time: 5 })]]);
  expect(traceRow('t', 'root', runs)).toMatchObject({ name: 'child', has_root: 0 });
  expect(traceRow('t', 'root', new Map([['p', run('p', null, { has_post: 0 })]]))).toBeNull();
});

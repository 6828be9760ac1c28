// The trace view's tree walk (apps/explorer/trace/runTree.ts): rows in tree order with depth and
// child counts, collapsed subtrees hidden, a search keeping matches with their ancestors, and
// the time axis in round steps.
import { describe, expect, test } from 'vitest';
import {
  axisTicks,
  buildTree,
  durationLabel,
  visibleRows,
  type TreeRun,
} from '../../../../apps/explorer/trace/runTree.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const run = (id: string, parents: string[], start: number, end: number | null, name = id): TreeRun => ({
  id,
  name,
  run_type: 'chain',
  status: end === null ? 'pending' : 'success',
  start_time: at(start),
  end_time: end === null ? null : at(end),
  first_token_time: null,
  parent_run_ids: parents,
  prompt_tokens: null,
  completion_tokens: null,
  total_tokens: null,
  total_cost: null,
});

// root ─┬─ plan ── model
//       └─ search (still running)
const runs = [
  run('root', [], 0, 900),
  run('plan', ['root'], 10, 400),
  run('model', ['root', 'plan'], 20, 390, 'chat-model'),
  run('search', ['root'], 450, null),
];
const names = (rows: ReturnType<typeof visibleRows>) => rows.map((r) => r.node.run.id);

describe('buildTree', () => {
  test('depths, parents, child counts and the span (a pending run counts by its start)', () => {
    const tree = buildTree(runs);
    expect(tree.nodes.map((n) => [n.run.id, n.depth, n.parentId, n.childCount])).toEqual([
      ['root', 0, null, 2],
      ['plan', 1, 'root', 1],
      ['model', 2, 'plan', 0],
      ['search', 1, 'root', 0],
    ]);
    expect(tree.end - tree.start).toBe(900);
    expect(tree.byId.get('search')!.end).toBeNull();
  });

  test('an empty trace has an empty span', () => {
    expect(buildTree([])).toMatchObject({ nodes: [], start: 0, end: 0 });
  });
});

describe('visibleRows', () => {
  const tree = buildTree(runs);
  test('every run without collapse or search', () => {
    expect(names(visibleRows(tree, new Set(), ''))).toEqual(['root', 'plan', 'model', 'search']);
  });

  test('a collapsed run hides its subtree only; collapsing a leaf changes nothing', () => {
    const rows = visibleRows(tree, new Set(['plan', 'search']), '');
    expect(names(rows)).toEqual(['root', 'plan', 'search']);
    expect(rows.map((r) => r.collapsed)).toEqual([false, true, false]);
    expect(names(visibleRows(tree, new Set(['root']), ''))).toEqual(['root']);
  });

  test('a search keeps the matches (by name, any case) with their ancestors, collapse ignored', () => {
    const rows = visibleRows(tree, new Set(['root']), ' CHAT ');
    expect(names(rows)).toEqual(['root', 'plan', 'model']);
    expect(rows.map((r) => r.match)).toEqual([false, false, true]);
    expect(visibleRows(tree, new Set(), 'nothing like it')).toEqual([]);
  });
});

describe('the time axis', () => {
  test('round steps from 0 to about the span', () => {
    expect(axisTicks(900)).toEqual([0, 200, 400, 600, 800]);
    expect(axisTicks(10_000)).toEqual([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(axisTicks(0)).toEqual([0]);
  });

  test('durations read in the unit that fits', () => {
    expect([0, 0.25, 12.4, 1500, 12_345, 125_000].map(durationLabel)).toEqual([
      '0ms',
      '0.3ms',
      '12ms',
      '1.50s',
      '12.3s',
      '2m5s',
    ]);
  });
});

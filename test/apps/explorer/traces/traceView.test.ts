// The traces table's view: quick filters composed into the filter language (which the server's
// own parser reads, quotes and all), the range's window, the order and its defaults.
import { expect, test } from 'vitest';
import {
  composedFilter,
  quickClauses,
  sortFields,
  sortOf,
  tracesViewOf,
  tracesViewParams,
  windowIsOpen,
  windowOf,
  type TracesView,
} from '../../../../apps/explorer/traces/traceView.ts';
import { parseFilter } from '../../../../projections/runs/filter/filterParser.ts';

test('quick filters become clauses ANDed with the box; a tag with quotes and backslashes stays one literal', () => {
  expect(composedFilter('', {})).toBe('');
  expect(composedFilter(' eq(name, "x") ', {})).toBe('eq(name, "x")');
  expect(composedFilter('', { errors: true })).toBe('eq(status, "error")');
  const all = composedFilter('gt(latency, "2s")', {
    errors: true,
    run_type: 'llm',
    tag: 'say "hi" \\o/',
    meta_key: 'env',
    meta_value: 'prod',
  });
  expect(all).toBe(
    'and(gt(latency, "2s"), eq(status, "error"), eq(run_type, "llm"), has(tags, "say \\"hi\\" \\\\o/"), ' +
      'and(eq(metadata_key, "env"), eq(metadata_value, "prod")))',
  );
  const parsed = JSON.stringify(parseFilter(all));
  expect(parsed).toContain(JSON.stringify('say "hi" \\o/'));
  expect(quickClauses({ meta_key: 'env' })).toEqual(['eq(metadata_key, "env")']);
});

test('ranges: a preset counts back from now, all starts at the epoch, custom takes the URL bounds', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  expect(windowOf({}, now)).toEqual({ min_start_time: '2026-11-19T12:00:00.000Z' }); // the default: 7 days
  expect(windowOf({ range: '1h' }, now)).toEqual({ min_start_time: '2026-11-26T11:00:00.000Z' });
  expect(windowOf({ range: 'all' }, now)).toEqual({ min_start_time: '1970-01-01T00:00:00.000Z' });
  expect(windowOf({ range: 'custom', from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, now)).toEqual({
    min_start_time: '2026-11-01T00:00:00.000Z',
    max_start_time: '2026-11-02T00:00:00.000Z',
  });
  expect(windowIsOpen({ range: 'custom', to: '2026-11-02T00:00:00Z' })).toBe(false);
  expect(windowIsOpen({ range: '24h' })).toBe(true);
});

test('order: start time newest first unless the URL says otherwise; defaults stay out of the URL', () => {
  expect(sortOf({})).toEqual({ by: 'start_time', order: 'desc' });
  expect(sortOf({ sort: 'latency', order: 'asc' })).toEqual({ by: 'latency', order: 'asc' });
  expect(sortOf({ sort: 'bogus' })).toEqual({ by: 'start_time', order: 'desc' });
  expect(sortFields('start_time', 'desc')).toEqual({ sort: undefined, order: undefined });
  expect(sortFields('total_cost', 'desc')).toEqual({ sort: 'total_cost', order: undefined });
});

test('the view and its query parameters read back the same; defaults are left out of the URL', () => {
  const view: TracesView = {
    sort: 'latency',
    order: 'asc',
    range: 'custom',
    from: '2026-11-01T00:00:00Z',
    to: '2026-11-02T00:00:00Z',
    errors: true,
    run_type: 'llm',
    tag: 'a b&c',
    meta_key: 'env',
    meta_value: 'x=y',
    selected: 'id1,id2',
  };
  const query = (v: TracesView) => {
    const params = new URLSearchParams();
    for (const [k, value] of Object.entries(tracesViewParams(v))) if (value) params.set(k, value);
    return params.toString();
  };
  expect(tracesViewOf(new URLSearchParams(query(view)))).toEqual(view);
  expect(query({})).toBe('');
  expect(tracesViewOf(new URLSearchParams('errors=0&tag='))).toEqual({});
});

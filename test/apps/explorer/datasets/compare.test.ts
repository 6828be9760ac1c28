// The comparison of experiments as data: scores per example (a mean over repetitions), and a
// score against the baseline's in its key's direction.
import { expect, test } from 'vitest';
import { cellsByExample, feedbackKeys, score, tally, verdict } from '../../../../apps/explorer/datasets/compare.ts';
import type { ExperimentRun } from '../../../../apps/explorer/datasets/experimentsApi.ts';

const run = (example: string | null, feedback: Record<string, { n: number; avg: number | null }>): ExperimentRun => ({
  id: `run-${Math.random()}`,
  trace_id: 't',
  session_id: 's',
  name: 'target',
  start_time: '2025-01-01T00:00:00Z',
  status: 'success',
  reference_example_id: example,
  outputs: null,
  error: null,
  latency: 1,
  feedback_stats: feedback,
});

test("an example's score is the mean over its runs (repetitions), weighted by each run's feedback", () => {
  const cells = cellsByExample([
    run('a', { correct: { n: 1, avg: 1 } }),
    run('a', { correct: { n: 3, avg: 0 }, note: { n: 1, avg: null } }),
    run('b', {}),
    run(null, { correct: { n: 1, avg: 1 } }),
  ]);
  expect([...cells.keys()]).toEqual(['a', 'b']);
  expect(cells.get('a')!.runs).toHaveLength(2);
  expect(cells.get('a')!.scores).toEqual({ correct: 0.25 });
  expect(cells.get('b')!.scores).toEqual({});
});

test('worse than the baseline is a regression, better an improvement, in the direction of the key', () => {
  expect(verdict(0, 1, false)).toBe('regression');
  expect(verdict(1, 0, false)).toBe('improvement');
  expect(verdict(1, 0, true)).toBe('regression');
  expect(verdict(0, 1, true)).toBe('improvement');
  expect(verdict(2 / 3, (1 + 1 + 0) / 3, false)).toBe('same');
  expect(verdict(undefined, 1, false)).toBeNull();
  expect(verdict(1, null, false)).toBeNull();
});

test('an experiment tallies the examples it does worse and better on, over every key', () => {
  const baseline = cellsByExample([
    run('a', { correct: { n: 1, avg: 1 }, harm: { n: 1, avg: 0 } }),
    run('b', { correct: { n: 1, avg: 0 } }),
    run('c', { correct: { n: 1, avg: 1 } }),
  ]);
  const other = cellsByExample([
    run('a', { correct: { n: 1, avg: 1 }, harm: { n: 1, avg: 1 } }),
    run('b', { correct: { n: 1, avg: 1 } }),
    run('d', { correct: { n: 1, avg: 0 } }),
  ]);
  expect(tally(other, baseline, ['correct', 'harm'], new Set(['harm']))).toEqual({ regressions: 1, improvements: 1 });
});

test('keys in alphabetical order; scores to three decimals', () => {
  expect(feedbackKeys([{ b: { n: 1, avg: 1 } }, null, { a: { n: 1, avg: 0 }, b: { n: 2, avg: 1 } }])).toEqual([
    'a',
    'b',
  ]);
  expect([score(2 / 3), score(0.5), score(1), score(0), score(null)]).toEqual(['0.667', '0.5', '1', '0', '—']);
});

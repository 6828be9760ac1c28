// The comparison of a dataset's experiments, as data: each experiment's runs grouped by the
// example they ran on (several with repetitions), a score per feedback key and example, and
// whether a score is worse (a regression) or better (an improvement) than the baseline's on the
// same example, in the key's direction. No React here: the view draws what this says.
import type { ExperimentRun, FeedbackStats } from './experimentsApi.ts';

/** What one experiment did on one example: its runs there and the mean score per feedback key. */
export interface Cell {
  runs: ExperimentRun[];
  scores: Record<string, number>;
}

export type Verdict = 'regression' | 'improvement' | 'same';

/** Scores closer than this are the same score (floating-point means of the same values). */
const TOLERANCE = 1e-9;

/** Each example's cell: its runs and, per key, the mean of their scores (weighted by how many each has). */
export function cellsByExample(runs: readonly ExperimentRun[]): Map<string, Cell> {
  const grouped = new Map<string, ExperimentRun[]>();
  for (const run of runs) {
    if (!run.reference_example_id) continue;
    grouped.set(run.reference_example_id, [...(grouped.get(run.reference_example_id) ?? []), run]);
  }
  const cells = new Map<string, Cell>();
  for (const [example, some] of grouped) cells.set(example, { runs: some, scores: meanScores(some) });
  return cells;
}

function meanScores(runs: readonly ExperimentRun[]): Record<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  for (const run of runs)
    for (const [key, stat] of Object.entries(run.feedback_stats ?? {})) {
      if (stat.avg == null) continue;
      const weight = Math.max(1, stat.n);
      const s = sums.get(key) ?? { total: 0, n: 0 };
      s.total += stat.avg * weight;
      s.n += weight;
      sums.set(key, s);
    }
  return Object.fromEntries([...sums].map(([key, s]) => [key, s.total / s.n]));
}

/** A score against the baseline's, in the key's direction; null when either is missing. */
export function verdict(
  score: number | undefined | null,
  baseline: number | undefined | null,
  lowerIsBetter: boolean,
): Verdict | null {
  if (score == null || baseline == null) return null;
  if (Math.abs(score - baseline) <= TOLERANCE) return 'same';
  return score > baseline !== lowerIsBetter ? 'improvement' : 'regression';
}

/** The feedback keys of any of these stats, in alphabetical order. */
export function feedbackKeys(stats: ReadonlyArray<FeedbackStats | null | undefined>): string[] {
  const keys = new Set<string>();
  for (const s of stats) for (const key of Object.keys(s ?? {})) keys.add(key);
  return [...keys].sort();
}

/** Every example any of the experiments ran on, once: the baseline's first, in its runs' order, then the others'. */
export function exampleOrder(cellsPerExperiment: ReadonlyArray<Map<string, Cell>>): string[] {
  const ids = new Set<string>();
  for (const cells of cellsPerExperiment) for (const id of cells.keys()) ids.add(id);
  return [...ids];
}

/** How many examples an experiment does worse and better on than the baseline, over every key. */
export function tally(
  cells: Map<string, Cell>,
  baseline: Map<string, Cell>,
  keys: readonly string[],
  lower: ReadonlySet<string>,
): { regressions: number; improvements: number } {
  let regressions = 0;
  let improvements = 0;
  for (const [example, cell] of cells) {
    const base = baseline.get(example);
    if (!base) continue;
    const verdicts = keys.map((k) => verdict(cell.scores[k], base.scores[k], lower.has(k)));
    if (verdicts.includes('regression')) regressions++;
    if (verdicts.includes('improvement')) improvements++;
  }
  return { regressions, improvements };
}

/** A score as the comparison shows it: up to three decimals, no trailing zeros. */
export function score(value: number | null | undefined): string {
  if (value == null) return '—';
  return String(Math.round(value * 1000) / 1000);
}

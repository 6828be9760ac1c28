// A dataset's experiments as the dataset page reads them (docs/evaluation.md): the projects naming
// the dataset with their statistics and feedback_stats, the root runs of one (each naming its
// example), the direction of feedback keys, and the dataset's saved comparisons.
import { apiCall, type Credentials } from '../core/api.ts';

/** Per feedback key, over an experiment's runs or one run's feedback: LangSmith's feedback_stats. */
export interface FeedbackStat {
  n: number;
  avg: number | null;
  stdev?: number | null;
  errors?: number;
  values?: Record<string, number>;
}
export type FeedbackStats = Record<string, FeedbackStat>;

/** An experiment: a project whose reference_dataset_id names the dataset, with include_stats. */
export interface Experiment {
  id: string;
  name: string;
  description: string | null;
  start_time: string;
  end_time: string | null;
  reference_dataset_id: string | null;
  extra: { metadata?: Record<string, unknown> } | null;
  run_count: number | null;
  error_rate: number | null;
  latency_p50: number | null;
  latency_p99: number | null;
  feedback_stats: FeedbackStats | null;
}

/** A root run of an experiment, with what the comparison shows of it. */
export interface ExperimentRun {
  id: string;
  trace_id: string;
  session_id: string;
  name: string;
  start_time: string;
  status: string | null;
  reference_example_id: string | null;
  outputs: unknown;
  error: string | null;
  latency: number | null;
  feedback_stats: FeedbackStats | null;
}

/** A saved comparison of a dataset's experiments (POST /datasets/comparative). */
export interface Comparison {
  id: string;
  name: string;
  created_at: string;
  experiments_info: Array<{ id: string; name: string | null }>;
}

const API_PAGE = 100;
/** Root runs read of one experiment: the first this many (oldest first). */
export const MAX_EXPERIMENT_RUNS = 5000;

/** The dataset's experiments with their statistics, newest first. */
export async function listExperiments(c: Credentials, datasetId: string): Promise<Experiment[]> {
  const all: Experiment[] = [];
  for (;;) {
    const params = new URLSearchParams({
      reference_dataset: datasetId,
      include_stats: 'true',
      offset: String(all.length),
      limit: String(API_PAGE),
    });
    const page = await apiCall<Experiment[]>(c, 'GET', `/sessions?${params}`);
    all.push(...page);
    if (page.length < API_PAGE) break;
  }
  return all.sort((a, b) => b.start_time.localeCompare(a.start_time));
}

/** Experiments by id with their statistics, in the order asked (an id not found is left out). */
export async function readExperiments(c: Credentials, ids: readonly string[]): Promise<Experiment[]> {
  const params = new URLSearchParams({ include_stats: 'true', limit: String(API_PAGE) });
  for (const id of ids) params.append('id', id);
  const found = await apiCall<Experiment[]>(c, 'GET', `/sessions?${params}`);
  return ids.flatMap((id) => found.filter((e) => e.id === id));
}

const RUN_FIELDS = [
  'id',
  'trace_id',
  'session_id',
  'name',
  'start_time',
  'status',
  'reference_example_id',
  'outputs',
  'error',
  'latency',
  'feedback_stats',
];

/** The experiment's root runs (the target's calls), oldest first, up to MAX_EXPERIMENT_RUNS. */
export async function experimentRuns(c: Credentials, experimentId: string): Promise<ExperimentRun[]> {
  const runs: ExperimentRun[] = [];
  let cursor: string | null = null;
  do {
    const page: { runs: ExperimentRun[]; cursors: { next: string | null } } = await apiCall(c, 'POST', '/runs/query', {
      session: [experimentId],
      is_root: true,
      select: RUN_FIELDS,
      order: 'asc',
      limit: API_PAGE,
      cursor,
    });
    runs.push(...page.runs);
    cursor = page.cursors.next;
  } while (cursor && runs.length < MAX_EXPERIMENT_RUNS);
  return runs;
}

/** The feedback keys among `keys` whose lower scores are better (their configs' is_lower_score_better). */
export async function lowerIsBetter(c: Credentials, keys: readonly string[]): Promise<Set<string>> {
  const lower = new Set<string>();
  for (let i = 0; i < keys.length; i += API_PAGE) {
    const params = new URLSearchParams({ limit: String(API_PAGE) });
    for (const key of keys.slice(i, i + API_PAGE)) params.append('key', key);
    const configs = await apiCall<Array<{ feedback_key: string; is_lower_score_better: boolean }>>(
      c,
      'GET',
      `/feedback-configs?${params}`,
    );
    for (const config of configs) if (config.is_lower_score_better) lower.add(config.feedback_key);
  }
  return lower;
}

export const listComparisons = (c: Credentials, datasetId: string) =>
  apiCall<Comparison[]>(c, 'GET', `/datasets/${datasetId}/comparative`);

/** Saves a comparison of the experiments (named by the API after them). */
export const saveComparison = (c: Credentials, datasetId: string, experimentIds: readonly string[]) =>
  apiCall<Comparison>(c, 'POST', '/datasets/comparative', {
    reference_dataset_id: datasetId,
    experiment_ids: experimentIds,
  });

// The root runs of a dataset's experiments by example, for the datasets context's
// POST /datasets/{dataset_id}/runs: which examples an experiment's root runs name (those of its
// runs that match a filter), the feedback scores of those runs, and the root runs of a page of
// examples with their feedback_stats (of a comparative experiment's feedback alone when one is
// named). Filters are the runs filter language (docs/read-api.md); a bad one is a 400 naming it.
import { feedbackStatsQuery, type FeedbackStat } from '../../../projections/feedback/feedbackQueries.ts';
import { parseFilter, type FilterNode } from '../../../projections/runs/filter/filterParser.ts';
import { runExamplesQuery } from '../../../projections/runs/runQueries.ts';
import { decodeRunCursor } from '../query/cursor.ts';
import { queryRuns, runConditions } from '../query/queryRuns.ts';
import { MAX_PAGE_SIZE, type RunsQuery } from '../query/runsQueryRequest.ts';
import type { RouteDeps } from '../routes/routeDeps.ts';
import { DEFAULT_RUN_FIELDS } from './runResponse.ts';

type Deps = Pick<RouteDeps, 'ch' | 'blobs' | 'tables'>;

/** Run ids a feedback_stats read names at once (as an array literal, well within a query's size). */
const STATS_CHUNK = 2000;
/** How long a preview of a run's inputs or outputs is. */
const PREVIEW_LENGTH = 500;

/** Filter-language expressions that must all hold, as one filter (null for none); `where` names them in a 400. */
export function parseRunFilters(texts: readonly string[], where: string): FilterNode | null {
  const nodes = texts.filter((t) => t.trim() !== '').map((t, i) => parseFilter(t, `${where}[${i}]`));
  if (nodes.length === 0) return null;
  return nodes.length === 1 ? nodes[0]! : { kind: 'and', args: nodes, pos: 0 };
}

const rootRuns = (sessionIds: string[], filter: FilterNode | null, over: Partial<RunsQuery> = {}): RunsQuery => ({
  sessionIds,
  ids: null,
  traceId: null,
  parentRunId: null,
  runType: null,
  isRoot: true,
  error: null,
  startTime: null,
  endTime: null,
  referenceExampleIds: null,
  filter,
  traceFilter: null,
  treeFilter: null,
  fields: ['id'],
  limit: MAX_PAGE_SIZE,
  order: 'asc',
  cursor: null,
  ...over,
});

/** The experiment's root runs that name an example (and match `filter`), each with its example. */
export function experimentRunExamples(
  deps: Deps,
  tenantId: string,
  sessionId: string,
  filter: FilterNode | null,
): Promise<Map<string, string>> {
  const conditions = runConditions(deps, tenantId, rootRuns([sessionId], filter))({ exact: true, traceIds: null });
  return runExamplesQuery(deps.ch, deps.tables.runs, tenantId, conditions.sql);
}

/** feedback_stats of these runs (a comparative experiment's feedback alone when one is named), a chunk at a time. */
async function statsOf(
  deps: Deps,
  tenantId: string,
  runIds: readonly string[],
  comparativeExperimentId: string | null,
): Promise<Map<string, Record<string, FeedbackStat>>> {
  const stats = new Map<string, Record<string, FeedbackStat>>();
  for (let i = 0; i < runIds.length; i += STATS_CHUNK) {
    const chunk = runIds.slice(i, i + STATS_CHUNK);
    for (const [id, s] of await feedbackStatsQuery(
      deps.ch,
      tenantId,
      deps.tables.feedback,
      chunk,
      comparativeExperimentId,
    ))
      stats.set(id, s);
  }
  return stats;
}

/** Each run's mean score of one feedback key (runs without a score of it are absent). */
export async function runScores(
  deps: Deps,
  tenantId: string,
  runIds: readonly string[],
  key: string,
  comparativeExperimentId: string | null,
): Promise<Map<string, number>> {
  const scores = new Map<string, number>();
  for (const [id, s] of await statsOf(deps, tenantId, runIds, comparativeExperimentId)) {
    const avg = s[key]?.avg;
    if (avg !== null && avg !== undefined) scores.set(id, avg);
  }
  return scores;
}

export interface ExampleRunsRequest {
  /** The experiments, each with the filter its runs must match (null: all its root runs). */
  sessions: ReadonlyArray<{ id: string; filter: FilterNode | null }>;
  exampleIds: readonly string[];
  /** Leave the inputs and outputs out, with a short text of each (inputs_preview, outputs_preview). */
  preview: boolean;
  comparativeExperimentId: string | null;
}

/** A payload's short text: its one string value, or its JSON, cut at PREVIEW_LENGTH. */
function previewOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const values = typeof value === 'object' && !Array.isArray(value) ? Object.values(value) : [];
  const text = values.length === 1 && typeof values[0] === 'string' ? values[0] : JSON.stringify(value);
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}…` : text;
}

/** The root runs of the experiments that name these examples, oldest first, each as /runs/query gives it with its feedback_stats. */
export async function rootRunsOfExamples(deps: Deps, tenantId: string, r: ExampleRunsRequest) {
  if (r.exampleIds.length === 0 || r.sessions.length === 0) return [];
  const fields = DEFAULT_RUN_FIELDS.filter((f) => f !== 'feedback_stats');
  // The experiments without a filter in one read; each filtered one in a read of its own.
  const plain = r.sessions.filter((s) => s.filter === null).map((s) => s.id);
  const reads = [
    ...(plain.length > 0 ? [rootRuns(plain, null)] : []),
    ...r.sessions.filter((s) => s.filter !== null).map((s) => rootRuns([s.id], s.filter)),
  ];
  const runs: Array<Record<string, unknown>> = [];
  for (const read of reads) {
    let q: RunsQuery = { ...read, referenceExampleIds: [...r.exampleIds], fields };
    for (;;) {
      const page = await queryRuns(deps, tenantId, q);
      runs.push(...page.runs);
      if (page.next === null) break;
      q = { ...q, cursor: decodeRunCursor(page.next, q.order) };
    }
  }
  const stats = await statsOf(
    deps,
    tenantId,
    runs.map((run) => String(run.id)),
    r.comparativeExperimentId,
  );
  for (const run of runs) {
    run.feedback_stats = stats.get(String(run.id)) ?? null;
    if (r.preview) {
      run.inputs_preview = previewOf(run.inputs);
      run.outputs_preview = previewOf(run.outputs);
      delete run.inputs;
      delete run.outputs;
    }
  }
  return runs.sort(
    (a, b) => String(a.start_time).localeCompare(String(b.start_time)) || String(a.id).localeCompare(String(b.id)),
  );
}

// Every statement the project issues, on current ClickHouse too. CI runs ClickHouse 18.16 (the
// Debian package); users run current releases. A tracing stack of its own works against 18.16
// through a recording proxy (test/support/clickHouseRecorder.ts): its DDL at start, the
// projectors' inserts and reads while a small fixed data set is ingested, every query function
// of the read models called here, a replay that swaps tables, a project deletion (mutations),
// and the schema upgrade of an older release. The recorded sequence, statement for statement,
// is then run on current ClickHouse in-process (chdb, 26.x; test/support/chdbReplay.ts), and
// every statement current ClickHouse rejects, or answers differently, fails the test.
// A coverage check keeps it from shrinking: each exported function of each module that writes
// SQL must be driven here (or say why it issues nothing itself), and every kind of statement
// must have been seen.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql, uuidSet } from '../../platform/clickhouse/sql.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureReadModels } from '../../projections/readModels.ts';
import { runsTableOutdated } from '../../projections/runs/runsTable.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { runByIdQuery, runPageQuery, storedRunIdsQuery, runExamplesQuery } from '../../projections/runs/runQueries.ts';
import { rootRunsQuery, traceExistsQuery, traceRunsQuery } from '../../projections/runs/traceRunsQueries.ts';
import { tracePage } from '../../projections/shared/tracePages.ts';
import { tracePageQuery } from '../../projections/traces/traceQueries.ts';
import { threadPageQuery, threadTracesQuery } from '../../projections/threads/threadQueries.ts';
import {
  activityPerProjectQuery,
  runBreakdownQuery,
  statsPerProjectQuery,
  threadSetStatsQuery,
  traceSetSeriesQuery,
  traceSetStatsQuery,
} from '../../projections/traces/statsQueries.ts';
import type { TraceSet } from '../../projections/shared/traceSet.ts';
import {
  feedbackByIdQuery,
  feedbackListQuery,
  comparativeFeedbackStatsQuery,
  feedbackStatsQuery,
  feedbackTokenQuery,
  projectFeedbackStatsQuery,
  runPlacesQuery,
  sessionFeedbackStatsQuery,
  traceSetFeedbackStatsQuery,
} from '../../projections/feedback/feedbackQueries.ts';
import { dropLeftoverReplayTables, REPLAY_VIEWS, replay } from '../../projections/replay/replay.ts';
import {
  datasetSplitsQuery,
  datasetVersionsQuery,
  exampleCountsQuery,
  exampleDatasetsQuery,
  exampleIdsQuery,
  examplesQuery,
  exampleVersionsAtQuery,
} from '../../projections/examples/exampleQueries.ts';
import { queryRuns } from '../../services/tracing/query/queryRuns.ts';
import { runsQueryFromBody } from '../../services/tracing/query/runsQueryRequest.ts';
import { projectStatsQuery } from '../../services/tracing/projects/projectStatsQuery.ts';
import { exportPlan } from '../../services/bulk-export/parquet/runsExport.ts';
import { dayStreams } from '../../services/bulk-export/parquet/exportFiles.ts';
import { examplesExportPlan } from '../../services/bulk-export/parquet/examplesExport.ts';
import { ClickHouseRecorder, type RecordedStatement, type RecordedStep } from '../support/clickHouseRecorder.ts';
import {
  answerDiffers,
  awaitMutations,
  replayOnChdb,
  settleTables,
  statementShape,
  type ChdbReplay,
} from '../support/chdbReplay.ts';
import { CHDB_PYTHON, ensurePythonEnv } from '../support/pythonEnv.ts';
import { provideInfra } from '../support/infra.ts';
import { postMultipart, stackCall, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { postParts, type Part, type TestRun } from '../support/runFactory.ts';
import { formatDottedTimestamp } from '../../platform/time.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';

// ---- the data set: two projects, five traces, threads, errors, usage, tags, metadata, feedback ----

const BASE = Date.parse('2025-06-02T09:00:00Z') * 1000; // µs
const HOUR = 3_600_000_000;
const at = (seconds: number) => new Date((BASE + seconds * 1e6) / 1000).toISOString();
const uuid = (n: number) => `01973000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const ID = {
  t1: uuid(0x101),
  t1llm: uuid(0x102),
  t1tool: uuid(0x103),
  t2: uuid(0x201),
  t2llm: uuid(0x202),
  t3: uuid(0x301),
  t4: uuid(0x401),
  t5: uuid(0x501),
  t5llm: uuid(0x502),
  example: uuid(0xe01),
  fGood: uuid(0xf01),
  fLlm: uuid(0xf02),
  fLabel: uuid(0xf03),
  fBeta: uuid(0xf04),
  fProject: uuid(0xf05),
  fDeleted: uuid(0xf06),
  fEarly: uuid(0xf07),
  e1: uuid(0xe11),
  e2: uuid(0xe12),
  e3: uuid(0xe13),
  e4: uuid(0xe14),
  x1: uuid(0xe21),
  fExperiment: uuid(0xf08),
  fPairwise: uuid(0xf09),
};

function runOf(id: string, root: TestRun | null, seconds: number, fields: Partial<TestRun>): TestRun {
  const order = formatDottedTimestamp(BASE + seconds * 1e6) + id;
  return {
    id,
    trace_id: root?.id ?? id,
    parent_run_id: root?.id ?? null,
    dotted_order: root ? `${root.dotted_order}.${order}` : order,
    name: 'agent',
    run_type: 'chain',
    start_time: at(seconds),
    ...fields,
  };
}
const usage = (input: number, output: number, cost: number) => ({
  usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output, total_cost: cost },
});
const alpha = { session_name: 'chdb-alpha' };
const thread = (thread_id: string, more: Record<string, unknown> = {}) => ({
  extra: { metadata: { thread_id, ...more } },
});

const t1 = runOf(ID.t1, null, 0, {
  ...alpha,
  tags: ['prod', 'v1'],
  inputs: { question: 'What is 2+2?' },
  ...thread('thread-1', { user: 'alice', n: 3 }),
});
const t2 = runOf(ID.t2, null, 60, {
  ...alpha,
  reference_example_id: ID.example,
  end_time: at(62),
  outputs: { answer: 'yes' },
  ...thread('thread-1', { user: 'bob' }),
});
const t5 = runOf(ID.t5, null, 240, { session_name: 'chdb-beta', end_time: at(241), ...thread('thread-9') });
const POSTED: TestRun[] = [
  t1,
  runOf(ID.t1llm, t1, 1, {
    ...alpha,
    name: 'model',
    run_type: 'llm',
    tags: ['prod'],
    end_time: at(3),
    outputs: usage(5, 7, 0.0042),
    events: [{ name: 'new_token', time: at(1.5) }],
  }),
  runOf(ID.t1tool, t1, 3, {
    ...alpha,
    name: 'search',
    run_type: 'tool',
    end_time: at(4),
    error: 'boom: timeout after 30s',
  }),
  t2,
  runOf(ID.t2llm, t2, 60.5, {
    ...alpha,
    name: 'model',
    run_type: 'llm',
    end_time: at(61.5),
    outputs: usage(7, 3, 0.001),
  }),
  runOf(ID.t3, null, 120, { ...alpha, name: 'solo', run_type: 'llm', tags: ['dev'], inputs: { prompt: 'hi' } }),
  runOf(ID.t4, null, 180, {
    ...alpha,
    name: 'retriever',
    run_type: 'retriever',
    end_time: at(181),
    error: 'not found',
    ...thread('thread-2'),
  }),
  t5,
  runOf(ID.t5llm, t5, 240.5, {
    session_name: 'chdb-beta',
    name: 'model',
    run_type: 'llm',
    end_time: at(241),
    outputs: usage(1, 1, 0.0001),
  }),
];
const feedbackPart = (id: string, body: Record<string, unknown>): Part => ({
  name: `feedback.${id}`,
  body: JSON.stringify(body),
});

/** Runs filters: every field type with each operator it takes, and the combinators. */
const FILTERS = [
  'eq(run_type, "llm")',
  'neq(status, "error")',
  'in(name, ["agent", "model"])',
  'like(name, "mod%")',
  'search(name, "AGENT")',
  'exists(thread_id)',
  'eq(thread_id, null)',
  'eq(error, true)',
  'eq(error, null)',
  'search(error, "TIMEOUT")',
  'like(error, "boom%")',
  'eq(error, "not found")',
  'neq(error, "not found")',
  `eq(id, "${ID.t1llm}")`,
  `in(trace_id, ["${ID.t1}", "${ID.t5}"])`,
  `neq(parent_run_id, "${ID.t1}")`,
  `in(reference_example_id, ["${ID.example}"])`,
  'exists(reference_example_id)',
  'eq(parent_run_id, null)',
  `gte(start_time, "${at(60)}")`,
  `lt(end_time, "${at(100)}")`,
  'exists(first_token_time)',
  'gt(total_tokens, 10)',
  'in(prompt_tokens, [5, 7])',
  'lte(total_cost, 0.002)',
  'gt(latency, "1s")',
  'lt(latency, 1.5)',
  'exists(latency)',
  'eq(is_root, true)',
  'has(tags, "prod")',
  'neq(tags, "dev")',
  'in(tags, ["dev", "v1"])',
  'like(tags, "pro%")',
  'search(tags, "PRO")',
  'exists(tags)',
  `has(metadata, '{"user": "alice", "n": 3}')`,
  'and(eq(metadata_key, "user"), eq(metadata_value, "alice"))',
  'eq(metadata_value, 3)',
  'gt(metadata_value, 2)',
  'neq(metadata_key, "user")',
  'in(metadata_key, ["user", "n"])',
  'like(metadata_value, "ali%")',
  'search(metadata_key, "US")',
  'in(metadata_value, ["bob", "alice"])',
  'and(eq(feedback_key, "quality"), gte(feedback_score, 1))',
  'neq(feedback_key, "quality")',
  'in(feedback_key, ["quality", "label"])',
  'lt(feedback_score, 0.75)',
  'search("timeout")',
  'not(eq(status, "success"))',
  'or(eq(run_type, "tool"), eq(run_type, "retriever"))',
  'and(eq(is_root, false), not(exists(thread_id)))',
];

// ---- recording on 18.16 ----

let recorder: ClickHouseRecorder;
let stack: TracingStack;
/** 18.16 directly, unrecorded: for waiting on the projectors and the test's own steps. */
let server: ClickHouseClient;
/** Through the recorder: statements of the functions called here, recorded under `label`. */
let direct: ClickHouseClient;
let upgrade: ClickHouseClient;
let label = 'test';
let database = '';
let tenantId = '';
/** The presigned feedback token made while ingesting. */
let feedbackTokenId: string;
const project = { alpha: '', beta: '' };
let datasetId = '';
/** An experiment of the dataset, with one run of ID.e1 (scored), and a comparison id its feedback names. */
let experimentId = '';
const comparisonId = uuid(0xc01);
/** The version (µs) the examples were first written at. */
let firstVersion = 0;
let steps: RecordedStep[] = [];
let chdb: ChdbReplay;

/** Runs `fn` with its statements recorded under `name` (the function it calls). */
async function as<T>(name: string, fn: () => Promise<T>): Promise<T> {
  label = name;
  try {
    return await fn();
  } finally {
    label = 'test';
  }
}

const settle = (stopMerges: boolean) =>
  recorder.exclusive({ kind: 'control', action: 'settle', database, stopMerges }, () =>
    settleTables(server, database, stopMerges),
  );
const projected = (what: string, done: () => Promise<boolean>) => waitFor(what, done, 30_000, 50);

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await server.query<{ n: string }>(query);
  return Number(row?.n ?? 0);
}

async function ingest(): Promise<void> {
  const send = async (parts: Part[]) => expect((await postMultipart(stack, parts)).status).toBe(202);
  // Feedback that arrives before its run: its row has no project until read with the run's.
  await send([feedbackPart(ID.fEarly, { run_id: ID.t3, key: 'quality', score: 0.5 })]);
  await projected('the early feedback', async () => (await count(sql`SELECT count() AS n FROM feedback`)) === 1);
  await send([
    ...postParts(POSTED),
    feedbackPart(ID.fGood, {
      run_id: ID.t1,
      key: 'quality',
      score: 1,
      comment: 'good',
      feedback_source: { type: 'api' },
    }),
    feedbackPart(ID.fLlm, { run_id: ID.t1llm, key: 'quality', score: 0 }),
    feedbackPart(ID.fLabel, { run_id: ID.t2, key: 'label', value: 'positive', feedback_source: { type: 'model' } }),
    feedbackPart(ID.fBeta, { run_id: ID.t5, key: 'quality', score: 1 }),
  ]);
  await projected(
    'the runs and feedback',
    async () =>
      (await count(sql`SELECT count() AS n FROM runs FINAL WHERE has_post = 1`)) === POSTED.length &&
      (await count(sql`SELECT count() AS n FROM traces FINAL`)) === 5 &&
      (await count(sql`SELECT count() AS n FROM feedback FINAL`)) === 5,
  );
  // A patch in a later request: a second version of the root (and of its trace row).
  await send(
    postParts([{ ...t1, inputs: undefined, extra: undefined, outputs: { answer: '4' }, end_time: at(5) }], 'patch'),
  );
  await projected(
    'the patch',
    async () => (await count(sql`SELECT count() AS n FROM traces FINAL WHERE isNotNull(end_time)`)) === 4,
  );

  tenantId = (await server.query<{ t: string }>(sql`SELECT toString(tenant_id) AS t FROM runs LIMIT 1`))[0]!.t;
  for (const name of ['alpha', 'beta'] as const) {
    const res = await stackCall(stack, 'GET', `/sessions?name=chdb-${name}`);
    project[name] = res.body[0].id;
  }
  // Feedback through the API: on a project, on a run, updated, deleted.
  const call = async (method: string, path: string, json?: unknown) =>
    expect((await stackCall(stack, method, path, json)).status, `${method} ${path}`).toBe(200);
  await call('POST', '/feedback', {
    id: ID.fProject,
    session_id: project.alpha,
    key: 'summary',
    score: 0.5,
    value: 'fine',
  });
  await call('POST', '/feedback', { id: ID.fDeleted, run_id: ID.t4, key: 'quality', score: 0.25 });
  await call('PATCH', `/feedback/${ID.fLlm}`, { score: 0.5, comment: 'meh' });
  await call('DELETE', `/feedback/${ID.fDeleted}`);
  await projected(
    'the feedback changes',
    async () =>
      (await count(sql`SELECT count() AS n FROM feedback FINAL WHERE deleted = 1`)) === 1 &&
      (await count(sql`SELECT count() AS n FROM feedback FINAL WHERE score = 0.5 AND comment = 'meh'`)) === 1 &&
      (await count(sql`SELECT count() AS n FROM feedback FINAL`)) === 7,
  );
  // A presigned feedback token, made and used (public: no key needed): its row, then its feedback.
  const token = await stackCall(stack, 'POST', '/feedback/tokens', { run_id: ID.t5, feedback_key: 'thumbs' });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  feedbackTokenId = token.body.id;
  await call('POST', `/feedback/tokens/${feedbackTokenId}`, { score: 1 });
  await projected(
    'the token’s feedback',
    async () => (await count(sql`SELECT count() AS n FROM feedback FINAL`)) === 8,
  );
}

/** A dataset's examples through the API: created (a version), changed, deleted, tagged (hard-deleted later, with merges on). */
async function ingestExamples(): Promise<void> {
  const ok = async (method: string, path: string, json?: unknown) => {
    const res = await stackCall(stack, method, path, json);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  datasetId = (await ok('POST', '/datasets', { name: 'chdb-dataset' })).id;
  const example = (id: string, n: number, split: string) => ({
    id,
    dataset_id: datasetId,
    inputs: { n },
    outputs: { m: n * 2 },
    metadata: { level: n % 2 ? 'odd' : 'even' },
    split,
  });
  const created = await ok('POST', '/examples/bulk', [
    example(ID.e1, 1, 'train'),
    example(ID.e2, 2, 'test'),
    example(ID.e3, 3, 'train'),
    example(ID.e4, 4, 'test'),
  ]);
  firstVersion = Date.parse(created[0].modified_at) * 1000;
  await ok('PATCH', '/examples/bulk', [
    { id: ID.e1, outputs: { m: 20 } },
    { id: ID.e2, split: ['validation'] },
  ]);
  await ok('DELETE', `/examples/${ID.e3}`);
  await ok('PUT', `/datasets/${datasetId}/tags`, { as_of: created[0].modified_at, tag: 'first' });
  await projected(
    'the examples',
    async () => (await count(sql`SELECT count() AS n FROM dataset_examples FINAL`)) === 7,
  );
  // An experiment of the dataset: a run of e1, scored, and pairwise feedback naming a comparison.
  experimentId = (
    await ok('POST', '/sessions', {
      name: 'chdb-experiment',
      reference_dataset_id: datasetId,
      extra: { metadata: { dataset_version: created[0].modified_at } },
    })
  ).id;
  await ok('POST', '/runs/batch', {
    post: [
      {
        ...runOf(ID.x1, null, 300, { session_name: 'chdb-experiment', reference_example_id: ID.e1 }),
        end_time: at(301),
        inputs: { n: 1 },
        outputs: { m: 2 },
      },
    ],
  });
  await ok('POST', '/feedback', { id: ID.fExperiment, run_id: ID.x1, key: 'correct', score: 1 });
  await ok('POST', '/feedback', {
    id: ID.fPairwise,
    run_id: ID.x1,
    key: 'preferred',
    score: 1,
    comparative_experiment_id: comparisonId,
  });
  await projected(
    "the experiment's run and feedback",
    async () =>
      (await count(sql`SELECT count() AS n FROM runs FINAL WHERE id = toUUID(${ID.x1}) AND has_post = 1`)) === 1 &&
      (await count(sql`SELECT count() AS n FROM feedback FINAL WHERE run_id = toUUID(${ID.x1})`)) === 2,
  );
}

/** Reads through the API, as clients make them. */
async function readThroughApi(): Promise<void> {
  const ok = async (method: string, path: string, json?: unknown) => {
    const res = await stackCall(stack, method, path, json);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  await ok('GET', '/sessions?include_stats=true');
  await ok('GET', `/sessions/${project.alpha}?include_stats=true`);
  await ok('GET', `/runs/${ID.t1llm}`);
  const first = await ok('POST', '/runs/query', { session: [project.alpha], limit: 2 });
  await ok('POST', '/runs/query', { session: [project.alpha], limit: 2, cursor: first.cursors.next });
  // The traces table of the explorer: sorted, filtered by the filter language, paged.
  const traces = { project_id: project.alpha, min_start_time: at(-3600), max_start_time: at(3600), page_size: 1 };
  for (const sort_by of ['latency', 'total_tokens', 'total_cost']) {
    const page = await ok('POST', '/api/v2/traces/query', {
      ...traces,
      sort_by,
      trace_filter: 'eq(run_type, "chain")',
      tree_filter: 'has(tags, "prod")',
    });
    if (page.next_cursor)
      await ok('POST', '/api/v2/traces/query', {
        ...traces,
        sort_by,
        trace_filter: 'eq(run_type, "chain")',
        cursor: page.next_cursor,
      });
  }
  await ok('GET', `/feedback?session=${project.alpha}`);
  await ok('GET', `/feedback/${ID.fGood}`);
  await ok('GET', `/examples?dataset=${datasetId}&splits=train&limit=2`);
  await ok('GET', `/examples?dataset=${datasetId}&as_of=first&metadata=${encodeURIComponent('{"level":"odd"}')}`);
  await ok('GET', `/examples?id=${ID.e1}&id=${ID.e2}`);
  await ok('GET', `/examples/${ID.e1}`);
  await ok('GET', `/datasets/${datasetId}`);
  await ok('GET', `/datasets/${datasetId}/versions`);
  await ok('GET', `/datasets/${datasetId}/version?tag=first`);
  await ok('GET', `/datasets/${datasetId}/versions/diff?from_version=first&to_version=latest`);
  await ok('GET', `/datasets/${datasetId}/splits?as_of=first`);
  // An experiment's results (get_experiment_results), filtered and sorted by its runs.
  const runs = `/datasets/${datasetId}/runs`;
  await ok('POST', runs, { session_ids: [experimentId], offset: 0, limit: 2 });
  await ok('POST', runs, {
    session_ids: [experimentId],
    filters: { [experimentId]: ['eq(feedback_key, "correct")', 'eq(run_type, "chain")'] },
    sort_params: { sort_by: 'feedback.correct', sort_order: 'ASC' },
    example_ids: [ID.e1, ID.e2],
    preview: true,
  });
  await ok('GET', `/datasets/${datasetId}/comparative`);
}

/** Every query function of the read models, called directly (recorded under its name). */
async function readDirectly(full: boolean): Promise<void> {
  const ch = direct;
  const T = LIVE_TABLES;
  const window = { minStartTime: BASE - HOUR, maxStartTime: BASE + HOUR };
  const alpha: TraceSet = { tenantId, projectIds: [project.alpha], ...window };
  const both: TraceSet = { tenantId, projectIds: [project.alpha, project.beta] };
  await as('runByIdQuery', () => runByIdQuery(ch, tenantId, ID.t1llm));
  await as('runExamplesQuery', async () => {
    await runExamplesQuery(ch, T.runs, tenantId, []);
    await runExamplesQuery(ch, T.runs, tenantId, [sql`session_id IN (${uuidSet([experimentId])})`, raw('is_root = 1')]);
  });
  await as('storedRunIdsQuery', () =>
    storedRunIdsQuery(ch, tenantId, [ID.t1llm, '00000000-0000-0000-0000-000000000000']),
  );
  await as('runPageQuery', async () => {
    const none = () => ({ sql: [], columns: new Set<string>() });
    const base = {
      tenantId,
      runsTable: T.runs,
      runKeysTable: T.runKeys,
      conditions: none,
      columns: ['name', 'status', 'total_tokens'],
    };
    const page = await runPageQuery(ch, { ...base, order: 'desc', after: null, limit: 2 });
    await runPageQuery(ch, { ...base, order: 'desc', after: page.next, limit: 2 });
    await runPageQuery(ch, { ...base, order: 'asc', after: null, limit: 20 });
  });
  await as('tracePageQuery', async () => {
    await tracePageQuery(ch, T, { tenantId, projectIds: [project.alpha, project.beta], ...window, limit: 10 });
    await tracePageQuery(ch, T, {
      tenantId,
      projectIds: [project.alpha],
      ...window,
      threadId: 'thread-1',
      hasError: false,
      traceIds: [ID.t1, ID.t2],
      after: { value: BASE + 61e6, traceId: ID.t2 },
      limit: 10,
    });
    for (const sortBy of ['latency', 'total_tokens', 'total_cost'] as const)
      await tracePageQuery(ch, T, {
        tenantId,
        projectIds: [project.alpha],
        ...window,
        sortBy,
        order: 'asc',
        after: { value: 1, traceId: ID.t1 },
        limit: 10,
      });
  });
  await as('tracePage', () =>
    tracePage(ch, T, tenantId, [sql`tenant_id = toUUID(${tenantId})`], sql`start_time, trace_id`, 3),
  );
  await as('traceRunsQuery', () =>
    traceRunsQuery(ch, T, {
      tenantId,
      traceId: ID.t1,
      projectId: project.alpha,
      ...window,
      columns: ['name', 'inputs', 'outputs', 'error', 'tags'],
    }),
  );
  await as('traceExistsQuery', async () => {
    await traceExistsQuery(ch, T, tenantId, ID.t1);
    await traceExistsQuery(ch, T, tenantId, ID.t1, project.beta);
  });
  await as('rootRunsQuery', () =>
    rootRunsQuery(ch, T, tenantId, [ID.t1, ID.t2, ID.t5], ['name', 'status', 'thread_id']),
  );
  await as('threadPageQuery', async () => {
    await threadPageQuery(ch, T, { tenantId, projectId: project.alpha, ...window, limit: 10 });
    const after = { lastActivity: BASE + 60e6, threadId: 'thread-2' };
    await threadPageQuery(ch, T, { tenantId, projectId: project.alpha, ...window, after, limit: 10 });
  });
  await as('threadTracesQuery', async () => {
    const q = { tenantId, projectId: project.alpha, threadId: 'thread-1', limit: 10 };
    await threadTracesQuery(ch, T, q);
    await threadTracesQuery(ch, T, { ...q, after: { startTime: BASE, traceId: ID.t1 } });
  });
  await as('statsPerProjectQuery', () => statsPerProjectQuery(ch, T, tenantId, [project.alpha, project.beta]));
  await as('traceSetStatsQuery', async () => {
    await traceSetStatsQuery(ch, T, alpha);
    await traceSetStatsQuery(ch, T, {
      ...both,
      threadId: 'thread-1',
      traceId: ID.t1,
      hasError: false,
      inThreads: true,
    });
    await traceSetStatsQuery(ch, T, { ...alpha, minStartTime: BASE + 10 * HOUR }); // no traces
  });
  await as('threadSetStatsQuery', () => threadSetStatsQuery(ch, T, both));
  await as('traceSetSeriesQuery', () => traceSetSeriesQuery(ch, T, { ...alpha, hasError: true }, 60_000_000));
  await as('activityPerProjectQuery', () =>
    activityPerProjectQuery(ch, T, { ...both, minStartTime: BASE - HOUR, maxStartTime: BASE + 10 * HOUR }, HOUR),
  );
  await as('runBreakdownQuery', async () => {
    await runBreakdownQuery(ch, T, both, 'all');
    await runBreakdownQuery(ch, T, alpha, 'roots');
  });
  await as('feedbackByIdQuery', async () => {
    await feedbackByIdQuery(ch, T.feedback, tenantId, ID.fLlm);
    await feedbackByIdQuery(ch, T.feedback, tenantId, ID.fDeleted);
  });
  await as('feedbackTokenQuery', async () => {
    expect(await feedbackTokenQuery(ch, T.feedbackTokens, feedbackTokenId)).toMatchObject({ feedback_key: 'thumbs' });
    expect(await feedbackTokenQuery(ch, T.feedbackTokens, ID.fLlm)).toBeNull();
  });
  await as('feedbackListQuery', async () => {
    await feedbackListQuery(ch, T, tenantId, {}, 0, 100);
    const every = {
      runIds: [ID.t1, ID.t1llm],
      keys: ['quality'],
      sessionIds: [project.alpha],
      sources: ['api'],
      hasComment: true,
      hasScore: true,
    };
    await feedbackListQuery(ch, T, tenantId, { ...every, level: 'run' }, 0, 10);
    await feedbackListQuery(
      ch,
      T,
      tenantId,
      { sessionIds: [project.alpha], hasComment: false, hasScore: false, level: 'session' },
      1,
      10,
    );
  });
  await as('runPlacesQuery', () => runPlacesQuery(ch, T.runLocations, tenantId, [ID.t1, ID.t3, ID.t5llm]));
  await as('feedbackStatsQuery', async () => {
    await feedbackStatsQuery(ch, tenantId, T.feedback, [ID.t1, ID.t1llm, ID.t2, ID.t3]);
    await feedbackStatsQuery(ch, tenantId, T.feedback, [ID.x1, ID.t1], comparisonId);
  });
  await as('comparativeFeedbackStatsQuery', () =>
    comparativeFeedbackStatsQuery(ch, tenantId, T.feedback, [comparisonId, uuid(0xc02)]),
  );
  await as('sessionFeedbackStatsQuery', () =>
    sessionFeedbackStatsQuery(ch, T.feedback, tenantId, [project.alpha, project.beta, experimentId]),
  );
  await as('projectFeedbackStatsQuery', () =>
    projectFeedbackStatsQuery(ch, T, tenantId, [project.alpha, project.beta]),
  );
  await as('traceSetFeedbackStatsQuery', async () => {
    await traceSetFeedbackStatsQuery(ch, T, alpha, 'all');
    await traceSetFeedbackStatsQuery(ch, T, both, 'roots');
  });
  await as('projectStatsQuery', () => projectStatsQuery(ch, T, tenantId, [project.alpha, project.beta]));
  await as('examplesQuery', async () => {
    await examplesQuery(ch, T, tenantId, { datasetId }, { offset: 1, limit: 2 });
    await examplesQuery(ch, T, tenantId, { datasetId, asOf: firstVersion, ids: [ID.e1, ID.e3], splits: ['train'] });
  });
  await as('exampleDatasetsQuery', () => exampleDatasetsQuery(ch, T, tenantId, [ID.e1, ID.e4]));
  await as('exampleIdsQuery', async () => {
    await exampleIdsQuery(ch, T, tenantId, { datasetId });
    await exampleIdsQuery(ch, T, tenantId, { datasetId, asOf: firstVersion, ids: [ID.e1, ID.e3], splits: ['train'] });
  });
  await as('exampleCountsQuery', () => exampleCountsQuery(ch, T, tenantId, [datasetId]));
  await as('datasetVersionsQuery', () =>
    datasetVersionsQuery(ch, T, tenantId, datasetId, { offset: 0, limit: 10, before: firstVersion }),
  );
  await as('datasetSplitsQuery', () => datasetSplitsQuery(ch, T, tenantId, datasetId, firstVersion));
  await as('exampleVersionsAtQuery', () => exampleVersionsAtQuery(ch, T, tenantId, datasetId, null));
  await as('exportPlan', async () => {
    const task = {
      tenantId,
      sessionId: project.alpha,
      exportId: uuid(0xb01),
      runId: uuid(0xb02),
      attempt: 0,
      startMicros: BASE - HOUR,
      endMicros: BASE + 30 * HOUR,
      formatVersion: 'v2_beta',
      compression: 'gzip',
      exportFields: null,
      filter: 'or(eq(run_type, "llm"), has(tags, "prod"))',
      resumeAfter: { startTime: BASE, id: ID.t1 },
    } as const;
    // the export streams its slices' queries as RowBinary (exportRunsToParquet)
    for (const t of [
      task,
      { ...task, filter: null, resumeAfter: null, exportFields: ['id', 'name', 'feedback_stats'] },
    ]) {
      const plan = await exportPlan({ ch, tables: T }, t);
      for await (const day of dayStreams(ch, plan.days)) for await (const chunk of day.body) void chunk;
    }
  });
  await as('examplesExportPlan', async () => {
    const task = {
      tenantId,
      datasetId,
      exportId: uuid(0xb03),
      runId: uuid(0xb04),
      attempt: 0,
      asOf: firstVersion,
      formatVersion: 'v1',
      compression: 'gzip',
      exportFields: null,
      resumeAfter: null,
    } as const;
    // the examples export streams its plan's one query as RowBinary (exportExamplesToParquet)
    for (const t of [
      task,
      { ...task, exportFields: ['splits', 'attachments'], resumeAfter: { startTime: 0, id: ID.e1 } },
    ]) {
      const plan = examplesExportPlan(T, t);
      for await (const day of dayStreams(ch, plan.days)) for await (const chunk of day.body) void chunk;
    }
  });
  const blobs = new BlobStore(stack.config);
  try {
    await as('queryRuns', async () => {
      const bodies: Record<string, unknown>[] = [
        { session: [project.alpha] },
        {
          session: [project.alpha, project.beta],
          select: ['name', 'outputs', 'feedback_stats', 'latency'],
          order: 'asc',
          limit: 3,
        },
        { id: [ID.t1llm, ID.t1tool] },
        { trace: ID.t1 },
        { parent_run: ID.t1 },
        { run_type: 'llm', is_root: false },
        { error: true },
        { error: false, start_time: at(30), end_time: at(200) },
        { reference_example: [ID.example] },
        { session: [] },
        { id: [] },
        { session: [project.alpha], trace_filter: 'eq(name, "agent")', tree_filter: 'eq(run_type, "tool")' },
        { trace_filter: 'has(tags, "prod")', tree_filter: 'eq(error, true)', filter: 'eq(run_type, "tool")' },
        // a filter on thread_id: its runs' places from run_threads, first for the newest, then all
        { session: [project.alpha], filter: 'eq(thread_id, "thread-1")', limit: 1 },
        { filter: 'or(eq(thread_id, "thread-1"), in(thread_id, ["thread-9", "thread-2"]))', order: 'asc', limit: 2 },
        { session: [project.alpha, project.beta], is_root: true, filter: 'eq(thread_id, "thread-1")' },
        ...(full ? FILTERS.map((filter) => ({ session: [project.alpha, project.beta], filter })) : []),
      ];
      for (const body of bodies) {
        const deps = { ch, blobs, tables: T };
        const page = await queryRuns(deps, tenantId, runsQueryFromBody(body));
        if (page.next) await queryRuns(deps, tenantId, runsQueryFromBody({ ...body, cursor: page.next }));
      }
    });
  } finally {
    blobs.close();
  }
}

beforeAll(async () => {
  const started = performance.now();
  const infra = await provideInfra();
  const pythonReady = ensurePythonEnv(CHDB_PYTHON);
  recorder = new ClickHouseRecorder(infra.clickhouseUrl);
  const stackUrl = await recorder.listen('stack');
  const directUrl = await recorder.listen(() => label);
  stack = await startTracingStack('chdb', { CLICKHOUSE_URL: stackUrl, PROJECTOR_FLUSH_MS: '20' });
  database = stack.config.CLICKHOUSE_DATABASE;
  server = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  direct = new ClickHouseClient({ url: directUrl, database });
  upgrade = new ClickHouseClient({ url: directUrl, database: `${database}_upgrade` });

  // The API and the projectors each create the read models at start (each ends with the view).
  const viewsCreated = () =>
    recorder.statements().filter((s) => s.origin === 'stack' && s.status === 200 && s.query.startsWith('CREATE VIEW'));
  await waitFor('both processes to create the read models', async () => viewsCreated().length >= 2, 60_000, 50);
  // Merges stopped while data comes in: reads without FINAL see the same parts on both servers.
  await settle(true);
  await ingest();
  await ingestExamples();
  await readThroughApi();
  await readDirectly(true);

  // The schema of today, and that of an older release (tables with their key columns only): ALTER … ADD COLUMN.
  await as('ensureReadModels', () => ensureReadModels(direct));
  await as('test', async () => {
    await upgrade.exec(sql`CREATE DATABASE ${ident(upgrade.database)}`, { database: null });
    const replacing = 'ENGINE = ReplacingMergeTree(version)';
    await upgrade.exec(
      sql`CREATE TABLE runs (tenant_id UUID, trace_id UUID, id UUID, version UInt64) ${raw(replacing)} ORDER BY (tenant_id, trace_id, id)`,
    );
    await upgrade.exec(
      sql`CREATE TABLE run_locations (tenant_id UUID, id UUID) ENGINE = ReplacingMergeTree ORDER BY (tenant_id, id)`,
    );
    await upgrade.exec(
      sql`CREATE TABLE feedback (tenant_id UUID, run_id UUID, id UUID, version UInt64) ${raw(replacing)} ORDER BY (tenant_id, run_id, id)`,
    );
  });
  await as('ensureReadModels', () => ensureReadModels(upgrade));
  await as('runsTableOutdated', async () => expect((await runsTableOutdated(upgrade)).outdated).toBe(true));
  await as('test', () => upgrade.exec(sql`DROP DATABASE ${ident(upgrade.database)}`, { database: null }));

  // A replay rebuilds every view into fresh tables and swaps them in (RENAME); they merge as they please until settled.
  await as('replay', () =>
    replay(stack.config, direct, createLogger('chdb-test', 'warn'), { views: [...REPLAY_VIEWS] }),
  );
  await as('dropLeftoverReplayTables', () => dropLeftoverReplayTables(direct));
  await settle(false);
  await readDirectly(false);

  // Deleting a project: the projectors delete its rows (ALTER … DELETE, run by the merges now running).
  expect((await stackCall(stack, 'DELETE', `/sessions/${project.beta}`)).status).toBeLessThan(300);
  await waitFor(
    "the deleted project's rows gone",
    async () => {
      // (feedback tokens and dataset examples belong to no project)
      const projectless = [LIVE_TABLES.feedbackTokens, LIVE_TABLES.examples, LIVE_TABLES.exampleIds];
      for (const table of Object.values(LIVE_TABLES).filter((t) => !projectless.includes(t)))
        if ((await count(sql`SELECT count() AS n FROM ${ident(table)} WHERE session_id = toUUID(${project.beta})`)) > 0)
          return false;
      return true;
    },
    60_000,
    100,
  );
  // A hard deletion of an example: every version of it deleted (ALTER … DELETE, as the project's rows).
  const hard = await stackCall(stack, 'POST', '/v1/platform/datasets/examples/delete', {
    example_ids: [ID.e4],
    hard_delete: true,
  });
  expect(hard.status, JSON.stringify(hard.body)).toBe(200);
  await waitFor(
    "the hard-deleted example's versions gone",
    async () => (await count(sql`SELECT count() AS n FROM dataset_examples WHERE id = toUUID(${ID.e4})`)) === 0,
    60_000,
    100,
  );
  await recorder.exclusive({ kind: 'control', action: 'mutationsDone', database }, () =>
    awaitMutations(server, database),
  );
  await readDirectly(false);

  steps = [...recorder.steps];
  const [{ tz }] = (await server.query<{ tz: string }>(sql`SELECT timezone() AS tz`)) as [{ tz: string }];
  const python = await pythonReady;
  const recorded = performance.now();
  chdb = await replayOnChdb(python, steps, tz);
  const seconds = (from: number, to = performance.now()) => ((to - from) / 1000).toFixed(1);
  console.log(
    `recorded ${steps.length} steps on 18.16 in ${seconds(started, recorded)} s; ` +
      `replayed on ClickHouse ${chdb.version} (chdb) in ${seconds(recorded)} s`,
  );
}, 900_000);

afterAll(async () => {
  await stack?.stop();
  await server?.exec(sql`DROP DATABASE IF EXISTS ${ident(`${database}_upgrade`)}`, { database: null }).catch(() => {});
  await Promise.all([server?.close(), direct?.close(), upgrade?.close(), recorder?.close()]);
});

// ---- the comparison ----

const statements = () => steps.flatMap((s, i) => (s.kind === 'statement' ? [{ step: s, index: i }] : []));
const brief = (s: RecordedStatement) => `[${s.origin}] ${s.query.replace(/\s+/g, ' ').slice(0, 400)}`;

describe('every statement we issue, on current ClickHouse', () => {
  test('18.16 accepted every statement of the recording', () => {
    const rejected = statements().filter(({ step }) => step.status !== 200);
    expect(rejected.map(({ step }) => `${brief(step)}\n  → ${step.answer.toString('utf8').slice(0, 300)}`)).toEqual([]);
  });

  test('current ClickHouse accepts each one and answers as 18.16 did', () => {
    expect(chdb.version).toMatch(/^(2[5-9]|[3-9]\d)\./);
    const full: string[] = [];
    const differences = statements().flatMap(({ step, index }) => {
      const answer = chdb.answers[index]!;
      const problem = answerDiffers(step, answer);
      if (problem === null) return [];
      const theirs = answer.ok ? answer.answer.toString('utf8') : answer.error;
      full.push(
        `#${index} [${step.origin}] in ${step.database}\n${step.query}\n--- ${problem}\n` +
          `--- 18.16:\n${step.answer.toString('utf8')}\n--- ${chdb.version}:\n${theirs}\n`,
      );
      return [`#${index} ${brief(step)}\n  → ${problem}`];
    });
    const controls = steps.flatMap((s, i) => {
      const answer = chdb.answers[i]!;
      return s.kind === 'control' && !answer.ok ? [`#${i} ${JSON.stringify(s)}: ${answer.error}`] : [];
    });
    let where = '';
    if (full.length) {
      // Whole statements and both answers, for whoever looks into it (RowBinary answers shown as text).
      where = join(repoRoot, '.local', 'chdb', `differences-${Date.now()}.txt`);
      writeFileSync(where, full.join('\n'));
    }
    expect([...controls, ...differences], `on ClickHouse ${chdb.version}${where ? `; in full: ${where}` : ''}`).toEqual(
      [],
    );
  });
});

// ---- coverage: the recording cannot silently shrink ----

/**
 * Every module that writes SQL, and how each of its exported functions is driven above: by a
 * call recorded under that label, by the stack (a pattern its statements must match), or not at
 * all because it issues nothing itself (null: a builder or a pure function; what it builds is
 * issued by a driven function). A new export, or a new module that writes SQL, fails the test
 * until it is driven here too.
 */
const DRIVERS: Record<string, Record<string, string | RegExp | null>> = {
  'projections/readModels.ts': {
    createReadModelTables: 'replay',
    ensureReadModels: 'ensureReadModels',
    warnIfRunsTableOutdated: /^SELECT sorting_key FROM system\.tables/,
  },
  'projections/runs/runsTable.ts': {
    createRunsTable: null,
    createRunKeysTable: null,
    createRunLocationsTable: null,
    createRunThreadsTable: null,
    runsOfTraces: null,
    runsOfThreads: null,
    threadRunsWhere: null,
    traceSpanQuery: 'queryRuns',
    runsTableOutdated: 'runsTableOutdated',
  },
  'projections/traces/tracesTable.ts': { createTracesTable: null },
  'projections/feedback/feedbackTable.ts': { createFeedbackTable: null },
  'projections/feedback/feedbackTokenTable.ts': { createFeedbackTokensTable: null, feedbackTokenRow: null },
  'projections/threads/threadsView.ts': { createThreadsView: null },
  'projections/runs/runQueries.ts': {
    runByIdQuery: 'runByIdQuery',
    runExamplesQuery: 'runExamplesQuery',
    storedRunIdsQuery: 'storedRunIdsQuery',
    runPageQuery: 'runPageQuery',
    partialRowFromClickHouse: null,
  },
  'projections/runs/traceRunsQueries.ts': {
    traceRunsQuery: 'traceRunsQuery',
    traceExistsQuery: 'traceExistsQuery',
    rootRunsQuery: 'rootRunsQuery',
  },
  'projections/traces/traceQueries.ts': { tracePageQuery: 'tracePageQuery' },
  // tracePageQuery reads its pages through these
  'projections/shared/tracePages.ts': {
    traceSummaryFromClickHouse: null,
    tracePage: 'tracePage',
    sortedTracePage: 'tracePageQuery',
    pageKeys: 'tracePageQuery',
    tracesOfKeys: 'tracePageQuery',
  },
  'projections/threads/threadQueries.ts': {
    threadPageQuery: 'threadPageQuery',
    threadTracesQuery: 'threadTracesQuery',
  },
  'projections/traces/hourStats.ts': {
    createTracesByHourTable: null,
    createTraceHourWritesTable: null,
    createTraceHourStatsTable: null,
    hourRow: null,
    hourWrites: null,
    histogramQuantiles: null,
    emptyRollup: null,
    addRollup: null,
    rollupOf: null,
    sliceRow: null,
    rollupQuantiles: null,
  },
  // hourRollups runs inside every stats query over a time range (the slices, the rows of stale and cut hours)
  'projections/traces/hourStatsQueries.ts': {
    hourRollups: 'traceSetStatsQuery',
    cutHours: null,
    SharedRollups: /FROM `trace_hour_stats` FINAL/,
  },
  'projections/shared/hours.ts': { hourOf: null, hoursTouched: null, hourSpans: null },
  'projections/copiesUpgrade.ts': {
    incompleteMarker: null,
    markCopiesIncompleteOnUpgrade: 'ensureReadModels',
    markCopiesComplete: 'replay',
    warnIfCopiesIncomplete: /traces_by_hour_incomplete/,
  },
  'projections/shared/copies.ts': { copyUsable: /traces_by_thread_incomplete/, forgetCopyMarkers: null },
  'projections/threads/threadTables.ts': {
    createTracesByThreadTable: null,
    createTraceHourReachTable: null,
    threadRow: null,
    threadRows: null,
    hourReach: null,
  },
  'projections/traces/statsQueries.ts': {
    statsPerProjectQuery: 'statsPerProjectQuery',
    traceSetStatsQuery: 'traceSetStatsQuery',
    threadSetStatsQuery: 'threadSetStatsQuery',
    traceSetSeriesQuery: 'traceSetSeriesQuery',
    runBreakdownQuery: 'runBreakdownQuery',
    activityPerProjectQuery: 'activityPerProjectQuery',
  },
  'projections/shared/traceSet.ts': { traceSetWhere: null, traceSetSource: 'traceSetStatsQuery' },
  'projections/feedback/feedbackQueries.ts': {
    feedbackByIdQuery: 'feedbackByIdQuery',
    feedbackListQuery: 'feedbackListQuery',
    feedbackTokenQuery: 'feedbackTokenQuery',
    runPlacesQuery: 'runPlacesQuery',
    feedbackStatsQuery: 'feedbackStatsQuery',
    comparativeFeedbackStatsQuery: 'comparativeFeedbackStatsQuery',
    sessionFeedbackStatsQuery: 'sessionFeedbackStatsQuery',
    projectFeedbackStatsQuery: 'projectFeedbackStatsQuery',
    traceSetFeedbackStatsQuery: 'traceSetFeedbackStatsQuery',
  },
  'projections/shared/projectRows.ts': { deleteProjectRows: /^ALTER TABLE `runs` DELETE WHERE/ },
  'projections/replay/replay.ts': { replay: 'replay', dropLeftoverReplayTables: 'dropLeftoverReplayTables' },
  'projections/runsProjector.ts': {
    runsProjectorGroupId: null,
    RunsProjector: /^INSERT INTO runs \(`tenant_id`, .*\) FORMAT RowBinary$/,
  },
  'projections/runs/runsWriter.ts': {
    RunsWriter: /^INSERT INTO run_keys \(`tenant_id`, .*\) FORMAT RowBinary$/,
    moves: null,
    placeOf: null,
    threadOf: null,
  },
  'projections/traces/tracesWriter.ts': {
    TracesWriter: /^INSERT INTO traces_by_hour \(`tenant_id`, .*\) FORMAT RowBinary$/,
  },
  'projections/threads/threadsWriter.ts': {
    ThreadsWriter: /^INSERT INTO trace_hour_reach \(`tenant_id`, .*\) FORMAT RowBinary$/,
  },
  'projections/feedback/feedbackProjector.ts': {
    feedbackProjectorGroupId: null,
    FeedbackProjector: /^INSERT INTO feedback \(`tenant_id`, .*\) FORMAT RowBinary$/,
  },
  'projections/examples/exampleTables.ts': { createExamplesTable: null, createExampleIdsTable: null },
  'projections/examples/exampleQueries.ts': {
    examplesQuery: 'examplesQuery',
    exampleIdsQuery: 'exampleIdsQuery',
    exampleDatasetsQuery: 'exampleDatasetsQuery',
    exampleCountsQuery: 'exampleCountsQuery',
    datasetVersionsQuery: 'datasetVersionsQuery',
    datasetSplitsQuery: 'datasetSplitsQuery',
    exampleVersionsAtQuery: 'exampleVersionsAtQuery',
    examplesAtVersionStatement: 'examplesExportPlan',
  },
  'projections/examples/examplesProjector.ts': {
    examplesProjectorGroupId: null,
    ExamplesProjector: /^INSERT INTO dataset_examples \(`tenant_id`, .*\) FORMAT RowBinary$/,
  },
  'services/tracing/query/queryRuns.ts': { runConditions: null, queryRuns: 'queryRuns' },
  'projections/runs/filter/filterSql.ts': {
    compileRunFilter: null,
    compileTraceCondition: null,
    filterThreadIds: null,
  },
  'services/tracing/projects/projectStatsQuery.ts': { projectStatsQuery: 'projectStatsQuery' },
  'services/bulk-export/parquet/exportQuery.ts': {
    exportFilterCondition: null,
    exportRunsQuery: null,
    feedbackFlagColumn: null,
    projectHasFeedback: 'exportPlan',
  },
  'services/bulk-export/parquet/exportColumns.ts': {
    unknownExportFields: null,
    exportColumns: null,
    queryColumnsFor: null,
    arrowType: null,
    arrowField: null,
    exportColumn: null,
  },
  // exportRunsToParquet streams exportPlan's queries as RowBinary (exportFiles.ts's dayStreams), as the test does
  'services/bulk-export/parquet/runsExport.ts': {
    exportPlan: 'exportPlan',
    exportRunsToParquet: 'exportPlan',
  },
  'services/bulk-export/parquet/exampleColumns.ts': {
    unknownExampleFields: null,
    exampleColumns: null,
    exampleQueryColumns: null,
  },
  // exportExamplesToParquet streams examplesExportPlan's query the same way
  'services/bulk-export/parquet/examplesExport.ts': {
    examplesExportPlan: 'examplesExportPlan',
    exportExamplesToParquet: 'examplesExportPlan',
  },
  // The cluster mode (CLICKHOUSE_CLUSTER) is not in this recording (one server): its statements
  // are run on current ClickHouse by clusterOnCurrentClickHouse.test.ts, on 18.16 by test/faults/clickhouseReplicas.test.ts.
  'platform/clickhouse/clusterDdl.ts': { clusterStatement: null },
  'projections/distributedTables.ts': { createDistributedTable: null },
};

/** Source files that write SQL with the binder (their own `sql` or `raw` text), the binder itself aside. */
function modulesWritingSql(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8');
        if (/\bsql`|\braw\(/.test(text) && /\/sql\.ts'/.test(text)) out.push(relative(repoRoot, path));
      }
    }
  };
  for (const top of ['services', 'projections', 'platform']) {
    try {
      walk(join(repoRoot, top));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return out.sort();
}

describe('coverage of the recording', () => {
  test('every module that writes SQL is listed, with each of its exported functions', async () => {
    expect(modulesWritingSql().filter((file) => !(file in DRIVERS))).toEqual([]);
    for (const [file, drivers] of Object.entries(DRIVERS)) {
      const module = (await import(join(repoRoot, file))) as Record<string, unknown>;
      const functions = Object.keys(module)
        .filter((k) => typeof module[k] === 'function')
        .sort();
      expect(functions, file).toEqual(Object.keys(drivers).sort());
    }
  });

  test('each driven function issued statements; the stack issued what its projectors write', () => {
    const recorded = statements().map(({ step }) => step);
    const missing: string[] = [];
    for (const [file, drivers] of Object.entries(DRIVERS))
      for (const [fn, driver] of Object.entries(drivers)) {
        if (driver === null) continue;
        const found =
          typeof driver === 'string'
            ? recorded.some((s) => s.origin === driver)
            : recorded.some((s) => s.origin === 'stack' && driver.test(s.query));
        if (!found) missing.push(`${file} ${fn} (${String(driver)})`);
      }
    expect(missing).toEqual([]);
  });

  // ClickHouse 18.16 deadlocks a RENAME of two live tables against a query reading both (its
  // table locks are fair); a RENAME of one live table sent while a query names it can stall the
  // whole merge pool. The replay swaps one live table at a time, after checking none is in use.
  test('each RENAME of the replay names one live table, sent after a check that no query uses it', () => {
    const recorded = statements().map(({ step }) => step.query);
    const renames = recorded.map((q, i) => [q, i] as const).filter(([q]) => q.startsWith('RENAME TABLE'));
    expect(renames.length).toBeGreaterThanOrEqual(3);
    // `runs` last of a swap (the catch-up after it relies on that: see replay.ts).
    expect(renames.at(-1)![0]).toMatch(/^RENAME TABLE `runs` TO/);
    for (const [query, i] of renames) {
      const live = Object.values(LIVE_TABLES).filter((t) => new RegExp(`\`${t}\` TO`).test(query));
      expect(live, query).toHaveLength(1);
      const check = recorded
        .slice(0, i)
        .reverse()
        .find((q) => q.includes('system.processes'));
      expect(check, `a system.processes check before: ${query}`).toContain(`\\\\b${live[0]}\\\\b`);
    }
  });

  test('every kind of statement was recorded, in many shapes', () => {
    const recorded = statements().map(({ step }) => step);
    const has = (re: RegExp) => recorded.some((s) => re.test(s.query));
    const tables = ['runs', 'run_keys', 'run_locations', 'run_threads', 'traces', 'feedback'];
    const kinds = {
      createDatabase: has(/^CREATE DATABASE IF NOT EXISTS/),
      createTables: tables.every((t) => has(new RegExp(`^CREATE TABLE IF NOT EXISTS \`${t}\` \\(`))),
      createReplayTables: has(/^CREATE TABLE IF NOT EXISTS `runs_replay_\d+`/),
      createView: has(/^CREATE VIEW IF NOT EXISTS `threads`/),
      addColumn: ['runs', 'run_locations', 'feedback'].every((t) =>
        has(new RegExp(`^ALTER TABLE \`${t}\` ADD COLUMN`)),
      ),
      // the projectors' inserts, in RowBinary (their bytes replayed on chdb as sent)
      inserts: tables.every((t) => has(new RegExp(`^INSERT INTO ${t}(_replay_\\d+)? \\(.*\\) FORMAT RowBinary$`))),
      deletes: tables.every((t) => has(new RegExp(`^ALTER TABLE \`${t}\` DELETE WHERE`))),
      rename: has(/^RENAME TABLE `runs` TO `runs_replaced_\d+`/),
      dropTables: has(/^DROP TABLE IF EXISTS `runs_replaced_\d+`/),
      rowBinary: has(/FORMAT RowBinary$/),
      systemTables: has(/FROM system\.columns/) && has(/FROM system\.tables/),
    };
    expect(kinds).toEqual(Object.fromEntries(Object.keys(kinds).map((k) => [k, true])));
    const ours = recorded.filter((s) => s.origin !== 'test');
    const shapes = new Set(ours.map((s) => statementShape(s.query)));
    console.log(`${ours.length} statements recorded, ${shapes.size} shapes`);
    expect(shapes.size).toBeGreaterThanOrEqual(MIN_SHAPES);
  });
});

/**
 * Distinct statement shapes (values taken out) of our own: 334 when this was written, in every
 * run; a little slack for shapes that depend on how the projectors happen to batch.
 */
const MIN_SHAPES = 330;

// Benchmark of the trace, thread and stats reads at 1M runs / ~33k traces (× BENCH_SCALE), in a scratch
// database filled with INSERT … SELECT FROM numbers() (dropped at the end). The routes run
// in-process (fastify inject: query, run building and JSON included, no HTTP socket).
//   [BENCH_SCALE=10] node test/bench/readRoutesScratch.bench.ts [--keep]      prints one JSON line at the end
import { randomUUID } from 'node:crypto';
import { raw, sql } from '../../platform/clickhouse/sql.ts';
import { percentile, round } from './measure.ts';
import {
  fillRunKeys,
  fillTraceCopies,
  readRoutesApp,
  scratchDatabase,
} from '../services/tracing/traces/readModelFixture.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { traceRunsQuery } from '../../projections/runs/traceRunsQueries.ts';
import { threadPageQuery } from '../../projections/threads/threadQueries.ts';
import { traceSetStatsQuery } from '../../projections/traces/statsQueries.ts';
import { DEFAULT_RUN_SELECTS, v2RunShape } from '../../services/tracing/routes/traces.ts';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
/** BENCH_SCALE=10: ten times the traces and threads (10M runs) over the same seven days. */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const SMALL_TRACES = 33_000 * SCALE; // 30 runs each
const BIG_TRACES = 10; // 1,000 runs each
const RUNS = SMALL_TRACES * 30 + BIG_TRACES * 1000; // 1,000,000 × SCALE
const TRACES = SMALL_TRACES + BIG_TRACES;
const THREADS = 3_300 * SCALE; // 10 traces each
const SPAN_MICROS = 7 * 86_400_000_000; // the traces start over the last seven days
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);

const tenantId = randomUUID();
const projectId = randomUUID();
const now = Date.now() * 1000;
const base = now - SPAN_MICROS;
const step = Math.floor(SPAN_MICROS / TRACES);

/** A UUID made of two 16-hex-digit numbers (constant SQL: the expressions are ours). */
const uuidOf = (hi: string, lo: string) =>
  `toUUID(concat(substring(lower(hex(bitOr(${hi}, 0x1000000000000000))), 1, 8), '-', substring(lower(hex(bitOr(${hi}, 0x1000000000000000))), 9, 4), '-', ` +
  `substring(lower(hex(bitOr(${hi}, 0x1000000000000000))), 13, 4), '-', substring(lower(hex(${lo})), 1, 4), '-', substring(lower(hex(${lo})), 5, 12)))`;
const traceUuid = uuidOf('cityHash64(ti)', '(0x1000000000000000 + ti)');
const runUuid = uuidOf('cityHash64(n)', '(0x2000000000000000 + n)');
/** A dotted_order segment: YYYYMMDDTHHMMSSffffffZ then the run id. */
const segment = (t: string, id: string) =>
  `concat(formatDateTime(toDateTime(intDiv(${t}, 1000000)), '%Y%m%dT%H%M%S', 'UTC'), substring(toString(1000000 + ${t} % 1000000), 2, 6), 'Z', toString(${id}))`;
const filler = 'x'.repeat(150);

async function fill(ch: import('../../platform/clickhouse/client.ts').ClickHouseClient): Promise<void> {
  // (ti, ri): trace number and run number in the trace; small traces first, then the big ones.
  const runs = raw(`
    SELECT ${traceUuid} AS trace, if(ri = 0, trace, ${runUuid}) AS run,
      if(ri = 0, NULL, trace) AS parent,
      if(ri = 0, ${segment('trace_start', 'trace')}, concat(${segment('trace_start', 'trace')}, '.', ${segment('start', 'run')})) AS dotted,
      if(ri = 0, 'agent', concat('step-', toString(ri % 17))) AS run_name,
      if(ri = 0, 'chain', ['retriever', 'llm', 'tool'][ri % 3 + 1]) AS type,
      if(n % 97 = 13, 'error', 'success') AS run_status,
      toInt64(${base}) + toInt64(ti) * ${step} AS trace_start,
      trace_start + toInt64(ri) * 1000 AS start,
      start + toInt64(if(ri = 0, 2000000 + (ti % 10) * 1000000, 10000 * (1 + ri % 7))) AS finish,
      concat('{"messages":[{"role":"user","content":"${filler}', toString(n), '"}]}') AS run_inputs,
      concat('{"output":"${filler}', toString(n), '"}') AS run_outputs,
      concat('{"metadata":{"thread_id":"thread-', toString(ti % ${THREADS}), '"}}') AS run_extra,
      if(run_status = 'error', 'ValueError: boom', NULL) AS run_error,
      concat('thread-', toString(ti % ${THREADS})) AS thread,
      toUInt64(if(type = 'llm', 100 + n % 50, 0)) AS prompt, toUInt64(if(type = 'llm', 20 + n % 30, 0)) AS completion,
      ri = 0 AS root
    FROM (SELECT number AS n,
            if(n < ${SMALL_TRACES * 30}, intDiv(n, 30), ${SMALL_TRACES} + intDiv(toUInt64(n - ${SMALL_TRACES * 30}), 1000)) AS ti,
            if(n < ${SMALL_TRACES * 30}, n % 30, toUInt64(n - ${SMALL_TRACES * 30}) % 1000) AS ri
          FROM numbers(${RUNS}))`);
  await ch.exec(sql`
    INSERT INTO runs (tenant_id, trace_id, id, session_id, parent_run_id, dotted_order, name, run_type, status, start_time, end_time,
      inputs, outputs, extra, payload_refs, attachments, error, thread_id, metadata_keys, metadata_values, prompt_tokens, completion_tokens, total_tokens,
      prompt_cost, completion_cost, total_cost, is_root, has_post, received_at, version)
    SELECT toUUID(${tenantId}), trace, run, toUUID(${projectId}), parent, dotted, run_name, type, run_status, start, finish,
      run_inputs, run_outputs, run_extra, '{}', '[]', run_error, thread, ['thread_id'], [thread], prompt, completion, prompt + completion,
      prompt * 0.000001, completion * 0.000002, prompt * 0.000001 + completion * 0.000002, root, 1, start, 1
    FROM (${runs})`);
  await fillRunKeys(ch);
  await ch.exec(sql`
    INSERT INTO traces (tenant_id, trace_id, session_id, thread_id, name, run_type, status, start_time, end_time, first_token_time,
      last_run_start_time, run_count, error_count, run_types, run_type_counts, statuses, status_counts,
      prompt_tokens, completion_tokens, total_tokens, prompt_cost, completion_cost, total_cost, tags, has_root, version)
    SELECT toUUID(${tenantId}), ${raw(traceUuid)}, toUUID(${projectId}), concat('thread-', toString(ti % ${THREADS})), 'agent', 'chain',
      if(ti % 20 = 3, 'error', 'success'), start, start + toInt64(2000000 + (ti % 10) * 1000000), if(ti % 2 = 0, start + 300000, NULL),
      start + toInt64(runs - 1) * 1000, runs, errors, ['chain', 'retriever', 'llm', 'tool'], [1, intDiv(runs, 3), intDiv(runs, 3), runs - 1 - 2 * intDiv(runs, 3)],
      ['success', 'error'], [runs - errors, errors], 3000 + ti % 500, 700 + ti % 300, 3700 + ti % 500 + ti % 300,
      0.003, 0.0014, 0.0044, [], 1, 1
    FROM (SELECT number AS ti, toInt64(${base}) + toInt64(ti) * ${step} AS start, if(ti < ${SMALL_TRACES}, 30, 1000) AS runs, if(ti % 20 = 3, 1, 0) AS errors
          FROM numbers(${TRACES}))`);
  await fillTraceCopies(ch);
}

/** A query function alone (ClickHouse and row conversion, no route), as a comparison point. */
const queryOnly = (run: () => Promise<unknown>) => async () => {
  await run();
  return { statusCode: 200, body: '' };
};

async function measure(label: string, iterations: number, call: () => Promise<{ statusCode: number; body: string }>) {
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < iterations + 3; i++) {
    const t0 = performance.now();
    const res = await call();
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    bytes = res.body.length;
    if (i >= 3) samples.push(ms); // the first calls warm caches
  }
  const result = {
    label,
    p50_ms: round(percentile(samples, 50), 1),
    p90_ms: round(percentile(samples, 90), 1),
    max_ms: round(Math.max(...samples), 1),
    response_bytes: bytes,
  };
  console.error(JSON.stringify(result));
  return result;
}

const db = await scratchDatabase(CLICKHOUSE_URL, 'traces_bench');
try {
  const t0 = performance.now();
  await fill(db.ch);
  const [counts] = await db.ch.query<{ runs: string; traces: string }>(
    sql`SELECT (SELECT count() FROM runs) AS runs, (SELECT count() FROM traces) AS traces`,
  );
  console.error(
    `filled ${counts!.runs} runs, ${counts!.traces} traces in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const [big] = await db.ch.query<{ id: string }>(
    sql`SELECT toString(trace_id) AS id FROM traces WHERE run_count = 1000 LIMIT 1`,
  );
  const app = await readRoutesApp(db.ch, [{ tenantId, projectId }]);
  const headers = { 'x-tenant-id': tenantId };
  const get = (url: string) => () => app.inject({ method: 'GET', url, headers });
  const post = (url: string, payload: object) => () => app.inject({ method: 'POST', url, headers, payload });
  const week = {
    min_start_time: new Date((base - 1e6) / 1000).toISOString(),
    max_start_time: new Date(now / 1000 + 1000).toISOString(),
  };

  const results = [];
  results.push(
    await measure(
      'trace runs: 1,000-run trace, default fields',
      ITERATIONS,
      get(`/api/v2/traces/${big!.id}/runs?project_id=${projectId}`),
    ),
  );
  results.push(
    await measure(
      'trace runs: 1,000-run trace, ID+NAME',
      ITERATIONS,
      get(`/api/v2/traces/${big!.id}/runs?project_id=${projectId}&selects=ID&selects=NAME`),
    ),
  );
  results.push(
    await measure(
      'trace runs: 1,000-run trace, with INPUTS+OUTPUTS',
      ITERATIONS,
      get(`/api/v2/traces/${big!.id}/runs?project_id=${projectId}&selects=ID&selects=INPUTS&selects=OUTPUTS`),
    ),
  );
  results.push(
    await measure(
      'traces query: first page of 20, 7 days',
      ITERATIONS,
      post('/api/v2/traces/query', { project_id: projectId, ...week }),
    ),
  );
  const firstThreads = JSON.parse((await post('/api/v2/threads/query', { project_id: projectId, ...week })()).body) as {
    next_cursor: string;
  };
  results.push(
    await measure(
      'threads query: first page of 20, 7 days',
      ITERATIONS,
      post('/api/v2/threads/query', { project_id: projectId, ...week }),
    ),
  );
  results.push(
    await measure(
      'threads query: second page (cursor)',
      ITERATIONS,
      post('/api/v2/threads/query', { project_id: projectId, ...week, cursor: firstThreads.next_cursor }),
    ),
  );
  results.push(
    await measure(
      'thread traces: 10 traces',
      ITERATIONS,
      get(`/api/v2/threads/thread-7/traces?project_id=${projectId}`),
    ),
  );
  results.push(
    await measure('thread stats', ITERATIONS, get(`/api/v2/threads/thread-7/stats?session_id=${projectId}`)),
  );
  results.push(
    await measure(
      'project stats: 7 days, auto buckets (POST /runs/stats)',
      ITERATIONS,
      post('/runs/stats', { session: [projectId], start_time: week.min_start_time, end_time: week.max_start_time }),
    ),
  );
  results.push(
    await measure(
      'project stats: 1 day, hourly (GET /sessions/{id}/stats)',
      ITERATIONS,
      get(
        `/sessions/${projectId}/stats?start_time=${new Date((now - 86_400_000_000) / 1000).toISOString()}&bucket=hour`,
      ),
    ),
  );
  const tables = LIVE_TABLES;
  const weekSet = { tenantId, projectIds: [projectId], minStartTime: base - 1_000_000, maxStartTime: now + 1_000_000 };
  const columns = v2RunShape(DEFAULT_RUN_SELECTS, null as never).columns;
  results.push(
    await measure(
      'query only: trace runs (default columns)',
      ITERATIONS,
      queryOnly(() => traceRunsQuery(db.ch, tables, { tenantId, traceId: big!.id, projectId, columns })),
    ),
  );
  results.push(
    await measure(
      'query only: thread page',
      ITERATIONS,
      queryOnly(() =>
        threadPageQuery(db.ch, tables, {
          tenantId,
          projectId,
          minStartTime: weekSet.minStartTime,
          maxStartTime: weekSet.maxStartTime,
          limit: 21,
        }),
      ),
    ),
  );
  results.push(
    await measure(
      'query only: trace set totals, 7 days',
      ITERATIONS,
      queryOnly(() => traceSetStatsQuery(db.ch, tables, weekSet)),
    ),
  );
  await app.close();
  console.log(
    JSON.stringify({
      bench: 'trace-thread-stats-reads',
      runs: Number(counts!.runs),
      traces: Number(counts!.traces),
      iterations: ITERATIONS,
      results,
    }),
  );
} finally {
  if (!process.argv.includes('--keep')) await db.drop();
}

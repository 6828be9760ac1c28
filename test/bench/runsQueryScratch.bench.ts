// /runs/query read benchmark: a scratch database filled with BENCH_RUNS runs (default 1M, traces
// of 10–50 runs, three projects, 30% of runs with a second unmerged version, feedback on some
// roots) straight by INSERT … SELECT, then the query path of POST /runs/query (queryRuns: filter
// compile, phase 1 candidates, phase 2 rows, feedback stats) per scenario, timed per ClickHouse
// query, against a baseline in the same run: the candidate phase read with FINAL instead. Progress
// to stderr, one JSON line to stdout; the scratch database is dropped at the end.
// BENCH_INDEX_GRANULARITY=256 tries the runs table with another primary index granularity.
// BENCH_KEEP=1 keeps the scratch database (its name goes to stderr); BENCH_DB=<name> reuses a
// kept one instead of seeding (and keeps it); BENCH_ONLY=a,b runs only those scenarios;
// BENCH_BASELINE_REPEAT times the baseline fewer times (at 10M runs it takes seconds a query).
//
//   node test/bench/runsQueryScratch.bench.ts        BENCH_RUNS=1000000  BENCH_REPEAT=25  BENCH_INDEX_GRANULARITY
import { randomBytes } from 'node:crypto';
import { provideInfra } from '../support/infra.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import { createReadModelTables } from '../../projections/readModels.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { createRunsTable } from '../../projections/runs/runsTable.ts';
import type { BlobStore } from '../../platform/blobStore.ts';
import { queryRuns, runConditions } from '../../services/tracing/query/queryRuns.ts';
import { runsQueryFromBody } from '../../services/tracing/query/runsQueryRequest.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 25);
const BASELINE_REPEAT = Number(process.env.BENCH_BASELINE_REPEAT ?? REPEAT);
const TENANT = '11111111-1111-4111-8111-111111111111';
const OTHER_TENANT = '99999999-9999-4999-8999-999999999999';
const project = (i: number) => `22222222-2222-4222-8222-00000000000${i}`;
const log = (msg: string) => process.stderr.write(`[bench:runs-query] ${msg}\n`);

/** A UUID string from two 64-bit hashes; the first 12 hex digits from `prefix` (a time, like v7). */
const uuidExpr = (prefix: string, seed: string) =>
  `toUUID(concat(substring(hex(toUInt64(${prefix})), 1, 8), '-', substring(hex(toUInt64(${prefix})), 9, 4), '-7',
     substring(hex(bitOr(sipHash64(${seed}), 0x1000000000000000)), 1, 3), '-8', substring(hex(bitOr(sipHash64(${seed}), 0x1000000000000000)), 4, 3), '-',
     substring(concat(hex(bitOr(sipHash64(${seed}), 0x1000000000000000)), hex(bitOr(sipHash64(${seed} + 7777777), 0x1000000000000000))), 7, 12)))`;

/** Inserts `runs` runs: trace t has 10 + t % 41 runs, run times are 10 ms apart. In chunks (memory). */
async function seedRuns(ch: ClickHouseClient, tenant: string, runs: number, t0: number): Promise<void> {
  const text = 'lorem ipsum dolor sit amet '.repeat(20);
  const insert = (fromTrace: number, toTrace: number, limit: number) =>
    raw(`INSERT INTO runs (tenant_id, trace_id, id, session_id, parent_run_id, dotted_order, name, run_type, status, start_time, end_time,
      inputs, outputs, events, extra, serialized, payload_refs, error, tags, reference_example_id, attachments, thread_id, metadata_keys,
      metadata_values, prompt_tokens, completion_tokens, total_tokens, prompt_cost, completion_cost, total_cost, first_token_time,
      is_root, has_post, received_at, version)
    SELECT toUUID('${tenant}'), trace_id, if(k = 0, trace_id, ${uuidExpr('ms', 'n')}), toUUID(concat('22222222-2222-4222-8222-00000000000', toString(t % 3))),
      if(k = 0, NULL, trace_id), '', if(k = 0, 'agent', ['llm_call', 'tool', 'retriever', 'parser'][k % 4 + 1]),
      if(k = 0, 'chain', ['llm', 'tool', 'retriever', 'chain'][k % 4 + 1]), if(n % 50 = 7, 'error', 'success'),
      ms * 1000, ms * 1000 + (n % 100) * 100000,
      concat('{"question":"${text}', toString(n), '"}'), '{"answer":"${text}"}', '[]', '{"metadata":{"user":"u"}}', '', '{}',
      if(n % 50 = 7, 'ValueError: boom', NULL), if(n % 10 = 0, ['prod', 'beta'], ['dev']), NULL, '[]',
      concat('thread-', toString(t % 5000)), ['thread_id', 'user'], [concat('thread-', toString(t % 5000)), concat('user-', toString(n % 97))],
      n % 1000, n % 300, n % 1000 + n % 300, 0.001, 0.002, 0.003, NULL, k = 0, 1, ms * 1000, 1
    FROM (
      SELECT t, k, t * 64 + k AS n, ${t0} + (t * 64 + k) * 10 AS ms, ${uuidExpr(`${t0} + t * 640`, 't * 64')} AS trace_id
      FROM (SELECT number + ${fromTrace} AS t FROM system.numbers LIMIT ${toTrace - fromTrace}) ARRAY JOIN range(10 + t % 41) AS k
      LIMIT ${limit})`);
  let t = 0;
  let left = runs;
  while (left > 0) {
    const from = t;
    let count = 0;
    while (count < 100_000 && count < left) count += 10 + (t++ % 41);
    await ch.exec(insert(from, t, Math.min(count, left)));
    left -= Math.min(count, left);
  }
}

async function seed(ch: ClickHouseClient): Promise<void> {
  // BENCH_INDEX_GRANULARITY: try the runs table with another primary index granularity than the DDL's.
  if (process.env.BENCH_INDEX_GRANULARITY)
    await ch.exec(
      raw(
        createRunsTable('runs').text.replace(
          /index_granularity = \d+/,
          `index_granularity = ${Number(process.env.BENCH_INDEX_GRANULARITY)}`,
        ),
      ),
    );
  await createReadModelTables(ch, LIVE_TABLES);
  // Trace t starts at t0 + t * 640 ms: the newest runs start about now.
  let traces = 0;
  for (let n = 0; n < RUNS; traces++) n += 10 + (traces % 41);
  const t0 = Date.now() - traces * 640;
  await seedRuns(ch, TENANT, RUNS, t0);
  await seedRuns(ch, OTHER_TENANT, Math.max(1000, RUNS / 100), t0);
  // A second, unmerged version of 30% of the runs (what a patch after the post leaves).
  const columns =
    'tenant_id, trace_id, id, session_id, parent_run_id, dotted_order, name, run_type, status, start_time, end_time, inputs, outputs, events, extra, serialized, payload_refs, error, tags, reference_example_id, attachments, thread_id, metadata_keys, metadata_values, prompt_tokens, completion_tokens, total_tokens, prompt_cost, completion_cost, total_cost, first_token_time, is_root, has_post, received_at';
  await ch.exec(
    raw(`INSERT INTO runs (${columns}, version) SELECT ${columns}, 2 FROM runs WHERE start_time % 10000000 < 3000000`),
  );
  await ch.exec(
    raw(
      'INSERT INTO run_locations (tenant_id, id, trace_id) SELECT tenant_id, id, trace_id FROM runs WHERE version = 1',
    ),
  );
  await ch.exec(
    raw(
      'INSERT INTO run_keys (tenant_id, trace_id, id, session_id, is_root, start_time) SELECT tenant_id, trace_id, id, session_id, is_root, start_time FROM runs WHERE version = 1',
    ),
  );
  await ch.exec(
    raw(
      "INSERT INTO run_threads (tenant_id, thread_id, session_id, is_root, start_time, id) SELECT tenant_id, thread_id, session_id, is_root, start_time, id FROM runs WHERE version = 1 AND thread_id != ''",
    ),
  );
  await ch.exec(
    raw(`INSERT INTO feedback (tenant_id, run_id, id, trace_id, session_id, key, score, value, comment, correction, feedback_source, created_at, version)
    SELECT tenant_id, id, id, trace_id, session_id, 'user_score', toFloat64(cityHash64(toString(id)) % 2), '', NULL, '', '', start_time, 1
    FROM runs WHERE is_root = 1 AND version = 1 AND start_time % 7 = 0`),
  );
}

/** A ClickHouse client that records how long each query took, in order. */
function timed(ch: ClickHouseClient, times: number[]): ClickHouseClient {
  return new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return async (statement: Sql) => {
        const start = performance.now();
        try {
          return await target.query(statement);
        } finally {
          times.push(performance.now() - start);
        }
      };
    },
  });
}

const p = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN) * 10) / 10;
};

const session = [project(1)];
const light = ['id', 'name', 'run_type', 'start_time', 'status', 'trace_id'];
const scenarios: Record<string, Record<string, unknown>> = {
  project_first_page: { session },
  run_type_llm: { session, filter: 'eq(run_type, "llm")' },
  roots: { session, is_root: true },
  errors_slow: { session, filter: 'and(eq(status, "error"), gt(latency, "5s"))' },
  metadata_pair: { session, filter: 'and(eq(metadata_key, "user"), eq(metadata_value, "user-7"))' },
  tag: { session, filter: 'has(tags, "beta")' },
  thread_roots: {
    session,
    is_root: true,
    filter: 'eq(thread_id, "thread-79")',
    select: ['id', 'name', 'thread_id', 'start_time', 'run_type', 'feedback_stats'],
  },
  thread_runs: { session, filter: 'eq(thread_id, "thread-79")' },
  feedback_pair: { session, filter: 'and(eq(feedback_key, "user_score"), eq(feedback_score, 1))' },
  trace_and_tree_filter: {
    session,
    filter: 'eq(run_type, "tool")',
    trace_filter: 'eq(name, "agent")',
    tree_filter: 'eq(name, "retriever")',
  },
  light_select_llm: { session, filter: 'eq(run_type, "llm")', select: light },
  light_select_roots: { session, is_root: true, select: light },
  whole_workspace: {},
};

async function main(): Promise<void> {
  const infra = await provideInfra();
  const reuse = process.env.BENCH_DB ?? null;
  const keep = reuse !== null || process.env.BENCH_KEEP === '1';
  const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
  const database = reuse ?? `qbench_${randomBytes(3).toString('hex')}`;
  const admin = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'system' });
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  if (!reuse) await admin.exec(sql`CREATE DATABASE ${ident(database)}`, { database: null });
  try {
    const start = performance.now();
    if (!reuse) await seed(ch);
    const [counts] = await ch.query<{ rows: string; runs: string; traces: string }>(
      raw('SELECT count() AS rows, uniqExact(id) AS runs, uniqExact(trace_id) AS traces FROM runs'),
    );
    log(
      `${reuse ? 'reusing' : 'seeded'} ${database}: ${counts!.runs} runs (${counts!.rows} rows) in ${counts!.traces} traces in ${Math.round(performance.now() - start)} ms`,
    );

    const results: Record<string, unknown> = {};
    for (const [name, body] of Object.entries(scenarios)) {
      if (only && !only.has(name)) continue;
      const total: number[] = [];
      const phase1: number[] = [];
      const phase2: number[] = [];
      const rest: number[] = [];
      let returned = 0;
      let nextPage: number[] = [];
      for (let i = 0; i < REPEAT + 3; i++) {
        const times: number[] = [];
        const deps = { ch: timed(ch, times), blobs: {} as BlobStore, tables: LIVE_TABLES };
        const t = performance.now();
        const page = await queryRuns(deps, TENANT, runsQueryFromBody(body));
        const elapsed = performance.now() - t;
        if (i < 3) continue; // warm-up
        total.push(elapsed);
        phase1.push(times[0]!);
        phase2.push(times[1] ?? 0);
        rest.push(times.slice(2).reduce((a, b) => a + b, 0));
        returned = page.runs.length;
        if (i === 3 && page.next) {
          const t2 = performance.now();
          await queryRuns(
            { ch, blobs: {} as BlobStore, tables: LIVE_TABLES },
            TENANT,
            runsQueryFromBody({ ...body, cursor: page.next }),
          );
          nextPage = [performance.now() - t2];
        }
      }
      // Baseline in the same run: the candidate phase read with FINAL (exact, no second look).
      const q = runsQueryFromBody(body);
      const exact = runConditions(
        { ch, blobs: {} as BlobStore, tables: LIVE_TABLES },
        TENANT,
        q,
      )({ exact: true, traceIds: null });
      const finalPhase1: number[] = [];
      for (let i = 0; i < BASELINE_REPEAT; i++) {
        const t = performance.now();
        await ch.query(sql`SELECT trace_id, id, start_time FROM runs FINAL WHERE tenant_id = toUUID(${TENANT}) AND has_post = 1 AND ${exact.sql.length ? join(exact.sql, ' AND ') : raw('1')}
          ORDER BY start_time DESC, id DESC LIMIT ${q.limit + 1}`);
        finalPhase1.push(performance.now() - t);
      }
      results[name] = {
        runs: returned,
        p50_ms: p(total, 0.5),
        p90_ms: p(total, 0.9),
        phase1_p50_ms: p(phase1, 0.5),
        phase2_p50_ms: p(phase2, 0.5),
        other_queries_p50_ms: p(rest, 0.5),
        second_page_ms: nextPage[0] && Math.round(nextPage[0]),
        baseline_phase1_final_p50_ms: p(finalPhase1, 0.5),
      };
      log(`${name}: ${JSON.stringify(results[name])}`);
    }
    process.stdout.write(
      JSON.stringify({
        bench: 'runs-query',
        runs: RUNS,
        repeat: REPEAT,
        index_granularity: Number(
          process.env.BENCH_INDEX_GRANULARITY ?? /index_granularity = (\d+)/.exec(createRunsTable('runs').text)?.[1],
        ),
        results,
      }) + '\n',
    );
  } finally {
    if (keep) log(`kept database ${database}`);
    else await admin.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`, { database: null });
    await Promise.all([ch.close(), admin.close()]);
  }
}

await main();

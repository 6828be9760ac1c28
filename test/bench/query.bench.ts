// Query benchmark (`npm run bench:query`): the read side over a realistic project.
//
// It starts a stack of its own (API + projectors as child processes, own topic prefix and
// ClickHouse database) and seeds it through the real ingest path (POST /runs/multipart,
// concurrent): one project of N runs in traces of 10-50 runs spread over the last 30 days,
// 5% of runs failing, LLM runs carrying outputs.usage_metadata, roots naming one of ~N/300
// threads, plus one trace of 1,000 runs nested a few levels; and a few small other projects.
// Once the projectors have caught up (their lag is 0 and `runs` / `traces` FINAL hold every
// run and trace), it times each query over HTTP, sequentially, after a warm-up, varying the
// parameters between iterations:
//   trace_tree      GET  /api/v2/traces/{id}/runs of the 1,000-run trace (checked: 1,000 runs, tree order)
//   filtered_page   POST /runs/query, first page of 100 under five kinds of filter
//   thread_page     POST /api/v2/threads/query, first page of the project's threads over ~30 days
//   project_stats   GET  /sessions/{id}/stats over ~30 days
// and then rebuilds every view into fresh tables (dropped after) with `npm run replay -- --no-swap`
// (projections/replay/replayMain.ts, a process of its own at REPLAY_NICE, as an operator runs it),
// while one client reads the 1,000-run trace every 100 ms (the reads must keep answering: their
// count, failures and latency are reported beside the replay's rate).
// A route that does not exist yet is reported as such and the others still run.
// Progress goes to stderr; stdout gets exactly one JSON line (`npm run -s bench:query | tail -1`),
// also written to bench/results/query.json (results.ts).
//
// Knobs: --runs N (or BENCH_RUNS; default 1,000,000)  BENCH_ITERATIONS=200  BENCH_WARMUP=20
// BENCH_CONCURRENCY=16 (seeding)  BENCH_SKIP_REPLAY=1  BENCH_CATCH_UP_TIMEOUT_S=1800
// BENCH_MERGE_WAIT_S=300 (before timing: wait this long at most for ClickHouse's background merges
// of the freshly seeded tables to finish, so the queries do not compete with them)
// BENCH_ONLY=trace_tree,filtered_page,thread_page,project_stats (time only those reads)
// BENCH_NODE_OPTIONS (NODE_OPTIONS for the API and projector, e.g. "--cpu-prof --cpu-prof-dir=<dir>")
// BENCH_KEEP_DATA=1 (leave the database and topics behind to look into queries afterwards; drop
// them with dropStackData from test/support/tracingStack.ts). BENCH_REUSE_DATA=<database> times the
// queries again on a kept run's database and topics, without seeding (same BENCH_RUNS): another
// checkout's reads on the very same data.
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { Admin } from '@platformatic/kafka';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { brokerList, topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/apiKeys.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';
import { runsProjectorGroupId } from '../../projections/runsProjector.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { dropLeftoverReplayTables, REPLAY_VIEWS, type ReplaySummary } from '../../projections/replay/replay.ts';
import { TrafficGenerator, type Batch, type TrafficOptions } from './traceGenerator.ts';
import { drive, infraPids, multipartSender, projectorLag, type Send } from './load.ts';
import { CpuMeter, coresUsed, percentile, round, type CpuReading } from './measure.ts';
import { startBenchRun } from './results.ts';
import { settleMerges } from './clickhouseMerges.ts';
import { measureCopyBaseline, type CopyBaseline } from './copyBaseline.ts';
import { runJsonLineProcess } from './jsonLineProcess.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const { values: args } = parseArgs({ options: { runs: { type: 'string' } } });
const DAY_MS = 86_400_000;
const options = {
  runs: Number(args.runs ?? env.BENCH_RUNS ?? 1_000_000),
  iterations: num('BENCH_ITERATIONS', 200),
  warmup: num('BENCH_WARMUP', 20),
  concurrency: num('BENCH_CONCURRENCY', 16),
  skipReplay: env.BENCH_SKIP_REPLAY === '1',
  catchUpTimeoutMs: num('BENCH_CATCH_UP_TIMEOUT_S', 1800) * 1000,
  keepData: env.BENCH_KEEP_DATA === '1' || env.BENCH_REUSE_DATA !== undefined,
  /** Only these reads (BENCH_ONLY=trace_tree,thread_page…); the others are reported as left out. */
  only: env.BENCH_ONLY ? env.BENCH_ONLY.split(',') : null,
  /** The database (and topic prefix) of a run kept with BENCH_KEEP_DATA=1: time its queries again, without seeding. */
  reuseData: env.BENCH_REUSE_DATA ?? null,
  mergeWaitMs: num('BENCH_MERGE_WAIT_S', 300) * 1000,
  /** Runs generated at a time (memory stays flat at any N). */
  chunkRuns: 20_000,
  runsPerTrace: [10, 50] as const,
  bigTraceRuns: 1000,
  runsPerThread: 300,
  days: 30,
  errorRate: 0.05,
  otherProjects: 3,
  otherProjectRuns: 2000,
  pageSize: 100,
};
const targets = {
  trace_tree_p50: 20,
  filtered_page_p50: 50,
  thread_page_p50: 100,
  project_stats_p50: 200,
  replay_runs_per_s: 100_000,
};

const log = (msg: string) => process.stderr.write(`[bench:query] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tenantId = DEFAULT_WORKSPACE_ID;
const MAIN_PROJECT = 'bench-query';
const isoMs = (ms: number) => new Date(ms).toISOString();

if (!Number.isInteger(options.runs) || options.runs < options.bigTraceRuns * 2) {
  log(`--runs must be an integer of at least ${options.bigTraceRuns * 2}; got ${args.runs ?? env.BENCH_RUNS}`);
  process.exit(2);
}

// ---- seeding ----

interface Seeded {
  runs: number;
  traces: number;
  bytes: number;
  rootIds: string[];
}

/** Sends batches until done; a failed request is retried (posting a run again is idempotent). */
async function sendAll(batches: Batch[], send: Send): Promise<Seeded> {
  const failed: Batch[] = [];
  const result = await drive(batches, options.concurrency, Infinity, false, async (batch) => {
    for (let attempt = 1; ; attempt++) {
      const r = await send(batch);
      if (r.ok || attempt === 3) {
        if (!r.ok) failed.push(batch);
        return r;
      }
      await sleep(500 * attempt);
    }
  });
  if (failed.length)
    throw new Error(
      `seeding failed: ${failed.length} requests were refused 3 times (${JSON.stringify(result.failures)})`,
    );
  return {
    runs: result.runs,
    traces: batches.reduce((n, b) => n + b.rootIds.length, 0),
    bytes: result.bytes,
    rootIds: batches.flatMap((b) => b.rootIds),
  };
}

/** Generates and sends `runs` runs of one generator, a chunk at a time. */
async function seedRuns(
  generator: TrafficGenerator,
  runs: number,
  send: Send,
  progress?: (seeded: Seeded) => void,
): Promise<Seeded> {
  const total: Seeded = { runs: 0, traces: 0, bytes: 0, rootIds: [] };
  while (total.runs < runs) {
    const batches = generator.batches(Math.min(options.chunkRuns, runs - total.runs));
    // Generating blocked the event loop: let sockets closed meanwhile be noticed.
    await sleep(50);
    const sent = await sendAll(batches, send);
    total.runs += sent.runs;
    total.traces += sent.traces;
    total.bytes += sent.bytes;
    total.rootIds.push(...sent.rootIds);
    progress?.(total);
  }
  return total;
}

// ---- timing queries over HTTP ----

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Groups samples within one query (e.g. the filter kind). */
  variant?: string;
}

interface QueryResult {
  p50: number | null;
  p99: number | null;
  /** Why there are no figures: the route is missing, or a request failed. */
  unavailable?: string;
}

class RouteMissing extends Error {}

interface QueryReport {
  result: QueryResult;
  details: Record<string, unknown>;
}

/**
 * Times `iterations` sequential calls after `warmup` untimed ones (request sent until the body
 * is read). `check` looks at every answer (throws on a wrong one); it is not timed.
 */
async function timeQuery(
  name: string,
  pool: Pool,
  apiKey: string,
  cpuPids: () => Record<string, number>,
  callOf: (i: number) => Call,
  check: (json: unknown, call: Call) => Record<string, number> | void,
): Promise<QueryReport> {
  const request = async (call: Call): Promise<{ ms: number; json: unknown }> => {
    const t0 = performance.now();
    const res = await pool.request({
      path: call.path,
      method: call.method,
      headers: { 'x-api-key': apiKey, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    if (res.statusCode === 404 && /Route .* not found/.test(text))
      throw new RouteMissing(`${call.method} ${call.path.split('?')[0]} is not a route yet`);
    if (res.statusCode !== 200)
      throw new Error(`${call.method} ${call.path.slice(0, 200)} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    return { ms, json: JSON.parse(text) as unknown };
  };
  if (options.only && !options.only.includes(name))
    return { result: { p50: null, p99: null, unavailable: 'left out (BENCH_ONLY)' }, details: {} };
  try {
    for (let i = 0; i < options.warmup; i++) {
      const call = callOf(i);
      check((await request(call)).json, call);
    }
    const samples: number[] = [];
    const byVariant = new Map<string, { ms: number[]; counts: Record<string, number[]> }>();
    const meter = new CpuMeter(cpuPids());
    meter.start();
    for (let i = 0; i < options.iterations; i++) {
      const call = callOf(options.warmup + i);
      const { ms, json } = await request(call);
      samples.push(ms);
      const counts = check(json, call) ?? {};
      if (call.variant) {
        const v = byVariant.get(call.variant) ?? { ms: [], counts: {} };
        v.ms.push(ms);
        for (const [k, n] of Object.entries(counts)) (v.counts[k] ??= []).push(n);
        byVariant.set(call.variant, v);
      }
    }
    const cpu = meter.stop();
    const result = { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)) };
    log(
      `${name}: p50 ${result.p50} ms, p99 ${result.p99} ms over ${samples.length} requests; cores ${JSON.stringify(coresUsed(cpu))}`,
    );
    const variants = Object.fromEntries(
      [...byVariant].map(([v, s]) => {
        const summary = {
          p50: round(percentile(s.ms, 50)),
          p99: round(percentile(s.ms, 99)),
          n: s.ms.length,
          ...Object.fromEntries(
            Object.entries(s.counts).map(([k, list]) => [
              `avg_${k}`,
              round(list.reduce((a, b) => a + b, 0) / list.length),
            ]),
          ),
        };
        log(`  ${v}: ${JSON.stringify(summary)}`);
        return [v, summary];
      }),
    );
    return {
      result,
      details: {
        cpu_ms_per_request: cpuMillisPerRequest(cpu, samples.length),
        ...(byVariant.size ? { variants } : {}),
      },
    };
  } catch (err) {
    const why = err instanceof RouteMissing ? err.message : `failed: ${(err as Error).message}`;
    log(`${name}: ${why}`);
    return { result: { p50: null, p99: null, unavailable: why }, details: {} };
  }
}

/** CPU milliseconds per request per process (where a request's time goes: API or ClickHouse). */
function cpuMillisPerRequest(cpu: CpuReading, requests: number): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(cpu.cpuSeconds).map(([name, s]) => [name, s === null ? null : round((s * 1000) / requests, 2)]),
  );
}

interface TreeRun {
  id: string;
  parent_run_ids?: string[];
  dotted_order?: string;
}

/**
 * Tree order is depth-first, parents before children: each run's parent is on the path to the
 * run before it (with parent_run_ids, ancestors root first), and dotted_order rises when returned.
 */
function checkTreeOrder(items: TreeRun[]): void {
  const path: string[] = [];
  items.forEach((run, k) => {
    if (k > 0 && run.dotted_order !== undefined && !(items[k - 1]!.dotted_order! < run.dotted_order))
      throw new Error(`dotted_order falls at run ${k}`);
    if (!run.parent_run_ids) throw new Error('runs come without parent_run_ids');
    const parent = run.parent_run_ids.at(-1);
    const at = parent === undefined ? (k === 0 ? -1 : -2) : path.lastIndexOf(parent);
    if (at === -2) throw new Error(`a second root at run ${k}`);
    if (parent !== undefined && at < 0)
      throw new Error(`run ${k} is not in tree order: its parent is not on the path to the run before it`);
    path.length = at + 1;
    path.push(run.id);
  });
}

/** Deterministic variation per iteration (so answers differ, and runs compare). */
const vary = (i: number, salt: number) => ((i + 1) * 2654435761 + salt * 40503) % 2 ** 31;

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  log(
    `seeding ${options.runs.toLocaleString('en')} runs, then ${options.warmup} + ${options.iterations} requests per query`,
  );
  log('note: a 2-core machine shared with other work; figures move with its load');
  let stack: TracingStack | null = null;
  let ch: ClickHouseClient | null = null;
  let admin: Admin | null = null;
  let pool: Pool | null = null;
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      if (ch) await dropLeftoverReplayTables(ch).catch(() => {});
      await pool?.close().catch(() => {});
      await admin?.close().catch(() => {});
      await ch?.close().catch(() => {});
      if (stack && options.keepData)
        log(`keeping database ${stack.config.CLICKHOUSE_DATABASE} and topics ${stack.config.KAFKA_TOPIC_PREFIX}*`);
      await stack
        ?.stop({ dropData: !options.keepData })
        .catch((err: Error) => log(`stack stop failed: ${err.message}`));
    })());
  process.once('SIGINT', () => {
    log('interrupted; cleaning up');
    void cleanup().finally(() => process.exit(130));
  });

  try {
    const reuse: Record<string, string> = options.reuseData
      ? { CLICKHOUSE_DATABASE: options.reuseData, KAFKA_TOPIC_PREFIX: `${options.reuseData}.` }
      : {};
    const nodeOptions: Record<string, string> = env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: env.BENCH_NODE_OPTIONS } : {};
    stack = await startTracingStack('bench_query', { LOG_LEVEL: 'warn', ...reuse, ...nodeOptions });
    const config = stack.config;
    log(
      `stack up: ${stack.url} (api pid ${stack.api.pid}, projector pid ${stack.projector.pid}, database ${config.CLICKHOUSE_DATABASE})`,
    );
    ch = ClickHouseClient.fromConfig(config);
    admin = new Admin({ clientId: 'bench-query-admin', bootstrapBrokers: brokerList(config) });
    pool = new Pool(stack.url, { connections: options.concurrency, keepAliveTimeout: 60_000 });
    const send = multipartSender(pool, stack.apiKey, log);
    const cpuPids = (): Record<string, number> => ({
      api: stack!.api.pid,
      projector: stack!.projector.pid,
      bench: process.pid,
      ...infraPids(),
    });

    const projectId = projectIdForName(tenantId, MAIN_PROJECT);
    // ---- 1. seed ----
    const threads = Math.max(1, Math.round(options.runs / options.runsPerThread));
    const seedAll = async () => {
      const shape = (sessionName: string, seed: number, extra: Partial<TrafficOptions> = {}): TrafficOptions => ({
        tenantId,
        sessionName,
        seed,
        interleave: 8,
        batchOps: 100,
        minRuns: options.runsPerTrace[0],
        maxRuns: options.runsPerTrace[1],
        threads,
        spreadMs: options.days * DAY_MS,
        errorRate: options.errorRate,
        leafMs: [20, 3000],
        usageMetadata: true,
        ...extra,
      });
      const seedMeter = new CpuMeter(cpuPids());
      seedMeter.start();
      const seedStart = performance.now();
      const seeded = { runs: 0, traces: 0, bytes: 0 };
      const add = (s: Seeded) => {
        seeded.runs += s.runs;
        seeded.traces += s.traces;
        seeded.bytes += s.bytes;
      };
      // A few small other projects first (they warm the API and projectors up, too).
      for (let p = 1; p <= options.otherProjects; p++)
        add(
          await seedRuns(
            new TrafficGenerator(shape(`${MAIN_PROJECT}-other-${p}`, 100 + p, { threads: 20 })),
            options.otherProjectRuns,
            send,
          ),
        );
      // The 1,000-run trace: one trace, chains nested up to 4 deep.
      const big = await seedRuns(
        new TrafficGenerator(
          shape(MAIN_PROJECT, 7, {
            interleave: 1,
            minRuns: options.bigTraceRuns,
            maxRuns: options.bigTraceRuns,
            nesting: 4,
          }),
        ),
        options.bigTraceRuns,
        send,
      );
      if (big.traces !== 1 || big.runs !== options.bigTraceRuns)
        throw new Error(`the big trace came out as ${big.traces} traces of ${big.runs} runs`);
      const bigTraceId = big.rootIds[0]!;
      add(big);
      const mainBefore = seeded.runs - big.runs;
      let lastLog = 0;
      const rest = await seedRuns(
        new TrafficGenerator(shape(MAIN_PROJECT, 1)),
        options.runs - options.bigTraceRuns,
        send,
        (s) => {
          if (performance.now() - lastLog < 10_000 && s.runs < options.runs - options.bigTraceRuns) return;
          lastLog = performance.now();
          const secs = (performance.now() - seedStart) / 1000;
          log(
            `seeding: ${(mainBefore + big.runs + s.runs).toLocaleString('en')} runs accepted in ${secs.toFixed(0)} s (${Math.round((mainBefore + big.runs + s.runs) / secs)} runs/s)`,
          );
        },
      );
      add(rest);
      const mainRuns = big.runs + rest.runs;
      const mainTraces = big.traces + rest.traces;
      const acceptedSeconds = (performance.now() - seedStart) / 1000;
      log(
        `seeded ${seeded.runs.toLocaleString('en')} runs (${mainRuns.toLocaleString('en')} in ${MAIN_PROJECT}) in ${seeded.traces.toLocaleString('en')} traces, ${(seeded.bytes / 1e6).toFixed(0)} MB, accepted in ${acceptedSeconds.toFixed(1)} s; waiting for the projectors`,
      );

      // Caught up: the projector's lag is 0, and the tables FINAL hold every run and trace.
      const runsTopic = topicName(config, TOPICS.runs);
      const groupId = runsProjectorGroupId(config);
      const catchUpDeadline = performance.now() + options.catchUpTimeoutMs;
      let counts = { runs: 0, traces: 0 };
      let lastLagLog = 0;
      for (;;) {
        if (performance.now() > catchUpDeadline)
          throw new Error(
            `the projectors did not catch up in ${options.catchUpTimeoutMs / 1000} s (${JSON.stringify(counts)} of ${seeded.runs} runs, ${seeded.traces} traces)`,
          );
        const lag = await projectorLag(admin!, runsTopic, groupId, config.KAFKA_PARTITIONS, log);
        if (lag !== 0n) {
          if (performance.now() - lastLagLog > 10_000) {
            log(`projector lag: ${lag ?? '?'} events`);
            lastLagLog = performance.now();
          }
          await sleep(250);
          continue;
        }
        const [row] = await ch!.query<{ runs: string; traces: string }>(
          sql`SELECT (SELECT count() FROM ${ident(LIVE_TABLES.runs)} FINAL) AS runs, (SELECT count() FROM ${ident(LIVE_TABLES.traces)} FINAL) AS traces`,
        );
        counts = { runs: Number(row?.runs ?? 0), traces: Number(row?.traces ?? 0) };
        if (counts.runs === seeded.runs && counts.traces === seeded.traces) break;
        if (counts.runs > seeded.runs || counts.traces > seeded.traces)
          throw new Error(
            `more rows than seeded: ${JSON.stringify(counts)} for ${seeded.runs} runs, ${seeded.traces} traces`,
          );
        await sleep(1000);
      }
      const seedSeconds = (performance.now() - seedStart) / 1000;
      const seedCpu = seedMeter.stop();
      const seedRate = seeded.runs / seedSeconds;
      log(
        `caught up after ${seedSeconds.toFixed(1)} s: ${Math.round(seedRate)} runs/s end to end; cores ${JSON.stringify(coresUsed(seedCpu))}`,
      );

      return { seeded, bigTraceId, mainRuns, mainTraces, acceptedSeconds, seedSeconds, seedCpu, seedRate };
    };
    /** The kept data of an earlier run (BENCH_REUSE_DATA), as seeding would have described it. */
    const reused = async () => {
      const one = async (q: ReturnType<typeof sql>) => Number((await ch!.query<{ n: string }>(q))[0]?.n ?? 0);
      const seeded = {
        runs: await one(sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.runs)} FINAL WHERE has_post = 1`),
        traces: await one(sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.traces)} FINAL`),
        bytes: 0,
      };
      const [big] = await ch!.query<{ id: string }>(
        sql`SELECT toString(trace_id) AS id FROM ${ident(LIVE_TABLES.traces)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId}) AND run_count = ${options.bigTraceRuns} LIMIT 1`,
      );
      if (!big)
        throw new Error(
          `no trace of ${options.bigTraceRuns} runs in ${options.reuseData}: not a kept bench:query database`,
        );
      const owned = sql`tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId})`;
      const mainRuns = await one(
        sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.runs)} FINAL WHERE ${owned} AND has_post = 1`,
      );
      const mainTraces = await one(sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.traces)} FINAL WHERE ${owned}`);
      log(
        `reusing ${options.reuseData}: ${seeded.runs.toLocaleString('en')} runs (${mainRuns.toLocaleString('en')} in ${MAIN_PROJECT}), no seeding`,
      );
      return {
        seeded,
        bigTraceId: big.id,
        mainRuns,
        mainTraces,
        acceptedSeconds: NaN,
        seedSeconds: NaN,
        seedCpu: null,
        seedRate: NaN,
      };
    };
    const { seeded, bigTraceId, mainRuns, mainTraces, acceptedSeconds, seedSeconds, seedCpu, seedRate } =
      options.reuseData ? await reused() : await seedAll();

    const [threadRow] = await ch.query<{ n: string }>(
      sql`SELECT uniqExact(thread_id) AS n FROM ${ident(LIVE_TABLES.traces)} FINAL WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${projectId}) AND thread_id != ''`,
    );
    const threadCount = Number(threadRow?.n ?? 0);
    const merges = await settleMerges(ch, config.CLICKHOUSE_DATABASE, options.mergeWaitMs);
    log(`background merges ${merges.settled ? 'done' : 'still running'} after ${merges.seconds.toFixed(0)} s`);
    const parts = await ch.query<{ table: string; parts: string; rows: string }>(
      sql`SELECT table, count() AS parts, sum(rows) AS rows FROM system.parts WHERE database = ${config.CLICKHOUSE_DATABASE} AND active GROUP BY table ORDER BY table`,
    );
    log(
      `${threadCount} threads in ${MAIN_PROJECT}; active parts ${parts.map((p) => `${p.table} ${p.parts}`).join(', ')}`,
    );

    // ---- 2. queries ----
    const now = Date.now();
    const apiKey = stack.apiKey;
    const time = (
      name: string,
      callOf: (i: number) => Call,
      check: (json: unknown, call: Call) => Record<string, number> | void,
    ) => timeQuery(name, pool!, apiKey, cpuPids, callOf, check);
    // A window of ~30 days whose bounds move a few minutes per iteration (all traces are in it).
    const window = (i: number) => ({
      from: now - (options.days + 1) * DAY_MS + (vary(i, 1) % 600) * 1000,
      to: now + 60_000 + (vary(i, 2) % 600) * 1000,
    });

    const traceTree = await time(
      'trace_tree',
      () => ({ method: 'GET', path: `/api/v2/traces/${bigTraceId}/runs?project_id=${projectId}` }),
      (json) => {
        const items = (json as { items: TreeRun[] }).items;
        if (items.length !== options.bigTraceRuns)
          throw new Error(`the trace's runs: ${items.length}, expected ${options.bigTraceRuns}`);
        if (items[0]!.id !== bigTraceId) throw new Error('the first run is not the root');
        checkTreeOrder(items);
      },
    );

    const filters: Array<{ kind: string; filter: (i: number) => string }> = [
      {
        kind: 'llm_latency',
        filter: (i) => `and(eq(run_type, "llm"), gt(latency, ${[0.5, 1, 1.5, 2, 2.5][vary(i, 3) % 5]}))`,
      },
      {
        kind: 'error',
        filter: (i) =>
          i % 2
            ? 'eq(status, "error")'
            : `and(eq(status, "error"), eq(run_type, "${['llm', 'tool', 'retriever', 'chain'][vary(i, 4) % 4]}"))`,
      },
      { kind: 'tag', filter: (i) => `has(tags, "seq:step:${1 + (vary(i, 5) % 40)}")` },
      { kind: 'thread', filter: (i) => `eq(thread_id, "thread-${1 + (vary(i, 6) % threads)}")` },
      { kind: 'tokens', filter: (i) => `gte(total_tokens, ${[500, 1000, 2000, 5000, 20000][vary(i, 7) % 5]})` },
    ];
    const filteredPage = await time(
      'filtered_page',
      (i) => {
        const f = filters[i % filters.length]!;
        return {
          method: 'POST',
          path: '/runs/query',
          body: { session: [projectId], filter: f.filter(Math.floor(i / filters.length)), limit: options.pageSize },
          variant: f.kind,
        };
      },
      (json) => {
        const runs = (json as { runs: unknown[] }).runs;
        if (!Array.isArray(runs) || runs.length > options.pageSize)
          throw new Error(`runs/query answered ${Array.isArray(runs) ? runs.length : typeof runs} runs`);
        return { runs: runs.length };
      },
    );

    const threadPage = await time(
      'thread_page',
      (i) => {
        const w = window(i);
        return {
          method: 'POST',
          path: '/api/v2/threads/query',
          body: {
            project_id: projectId,
            min_start_time: isoMs(w.from),
            max_start_time: isoMs(w.to),
            page_size: options.pageSize,
          },
        };
      },
      (json) => {
        const items = (json as { items: unknown[] }).items;
        if (!Array.isArray(items) || items.length === 0) throw new Error('threads/query answered no threads');
        return { threads: items.length };
      },
    );

    const projectStats = await time(
      'project_stats',
      (i) => {
        const w = window(i);
        return {
          method: 'GET',
          path: `/sessions/${projectId}/stats?start_time=${encodeURIComponent(isoMs(w.from))}&end_time=${encodeURIComponent(isoMs(w.to))}`,
        };
      },
      (json) => {
        const s = json as { trace_count?: number; run_count?: number };
        if (s.run_count !== mainRuns) throw new Error(`stats: run_count ${s.run_count}, expected ${mainRuns}`);
        if (s.trace_count !== undefined && s.trace_count !== mainTraces)
          throw new Error(`stats: trace_count ${s.trace_count}, expected ${mainTraces}`);
      },
    );

    // ---- 3. replay of every view into fresh tables ----
    let replayed: {
      events: number;
      seconds: number;
      eventsPerSecond: number;
      runsPerSecond: number;
      rows: Record<string, number>;
      cores: Record<string, number | null>;
      cpuUsPerRun: Record<string, number | null>;
      reads: { n: number; failed: number; p50: number | null; p99: number | null; first_failure?: string };
    } | null = null;
    if (!options.skipReplay) {
      log(`replaying ${REPLAY_VIEWS.join(', ')} into fresh tables (no swap), as npm run replay does`);
      const meter = new CpuMeter(cpuPids());
      meter.start();
      // Reads during the replay: the trace tree, every 100 ms, each checked.
      const reads = { ms: [] as number[], failed: 0, firstFailure: undefined as string | undefined };
      let replaying = true;
      const reader = (async () => {
        while (replaying) {
          const t0 = performance.now();
          try {
            const res = await pool!.request({
              path: `/api/v2/traces/${bigTraceId}/runs?project_id=${projectId}`,
              method: 'GET',
              headers: { 'x-api-key': apiKey },
            });
            const json = (await res.body.json()) as { items?: unknown[] };
            if (res.statusCode !== 200 || json.items?.length !== options.bigTraceRuns)
              throw new Error(`answered ${res.statusCode} with ${json.items?.length} runs`);
            reads.ms.push(performance.now() - t0);
          } catch (err) {
            reads.failed++;
            reads.firstFailure ??= (err as Error).message;
          }
          await sleep(100); // ten a second or so: a user's reads, not a load competing with the replay
        }
      })();
      const summary = await runJsonLineProcess<ReplaySummary & { cpu_seconds: number }>(
        'replay',
        'projections/replay/replayMain.ts',
        ['--view', 'all', '--no-swap', '--json'],
        stack.env,
        log,
      );
      const cpu = meter.stop();
      replaying = false;
      await reader;
      if (summary.rows.runs !== seeded.runs || summary.rows.traces !== seeded.traces)
        log(
          `replay rebuilt ${summary.rows.runs} runs and ${summary.rows.traces} traces; expected ${seeded.runs} and ${seeded.traces}`,
        );
      replayed = {
        events: summary.events,
        seconds: summary.seconds,
        eventsPerSecond: summary.eventsPerSecond,
        runsPerSecond: seeded.runs / summary.seconds,
        rows: summary.rows as Record<string, number>,
        cores: { ...coresUsed(cpu), replay: round(summary.cpu_seconds / summary.seconds, 2) },
        // The replay's process reports its own CPU (the "replay" line); the bench's is its reads.
        cpuUsPerRun: Object.fromEntries(
          Object.entries({ ...cpu.cpuSeconds, replay: summary.cpu_seconds }).map(([name, s]) => [
            name,
            s === null ? null : round((s * 1e6) / seeded.runs),
          ]),
        ),
        reads: {
          n: reads.ms.length,
          failed: reads.failed,
          p50: round(percentile(reads.ms, 50)),
          p99: round(percentile(reads.ms, 99)),
          ...(reads.firstFailure ? { first_failure: reads.firstFailure } : {}),
        },
      };
      log(
        `replay: ${summary.events} events in ${summary.seconds.toFixed(1)} s = ${Math.round(summary.eventsPerSecond)} events/s, ${Math.round(replayed.runsPerSecond)} runs/s; cores ${JSON.stringify(replayed.cores)}; reads meanwhile ${JSON.stringify(replayed.reads)}`,
      );
      const dropped = await dropLeftoverReplayTables(ch);
      log(`dropped the fresh tables: ${dropped.join(', ')}`);
    }
    // The least a rebuild of the runs needs: the same runs topic copied by the minimal copy.
    const copy: CopyBaseline | null = replayed
      ? await measureCopyBaseline(stack.env, ch, topicName(config, TOPICS.runs), log)
      : null;
    const ratio = (a: number | null | undefined, b: number | null | undefined) =>
      a == null || b == null || b === 0 ? null : round(a / b, 2);

    const queries = {
      trace_tree: traceTree,
      filtered_page: filteredPage,
      thread_page: threadPage,
      project_stats: projectStats,
    };
    const unavailable = Object.fromEntries(
      Object.entries(queries)
        .filter(([, q]) => q.result.unavailable)
        .map(([name, q]) => [name, q.result.unavailable]),
    );
    const figures = (q: QueryReport) => ({ p50: q.result.p50, p99: q.result.p99 });
    const result = {
      bench: 'query',
      // The ratios first: the tracing API's CPU for the 1,000-run trace in tree order, the replay's
      // CPU per run over the minimal copy's, the trace tree's p99 during the replay over quiet.
      trace_tree_api_cpu_ms:
        (traceTree.details as { cpu_ms_per_request?: Record<string, number | null> }).cpu_ms_per_request?.api ?? null,
      replay_cpu_ratio_to_copy: ratio(replayed?.cpuUsPerRun.replay, copy?.copy_cpu_us_per_run),
      replay_clickhouse_cpu_ratio_to_copy: ratio(replayed?.cpuUsPerRun.clickhouse, copy?.clickhouse_cpu_us_per_run),
      reads_during_replay_p99_ratio: ratio(replayed?.reads.p99, traceTree.result.p99),
      copy_baseline: copy,
      runs: mainRuns,
      traces: mainTraces,
      threads: threadCount,
      seed_runs_per_s: round(seedRate, 0),
      trace_tree_ms: figures(traceTree),
      filtered_page_ms: figures(filteredPage),
      thread_page_ms: figures(threadPage),
      project_stats_ms: figures(projectStats),
      replay_events_per_s: replayed ? round(replayed.eventsPerSecond, 0) : null,
      replay_runs_per_s: replayed ? round(replayed.runsPerSecond, 0) : null,
      trace_tree_during_replay_ms: replayed
        ? { p50: replayed.reads.p50, p99: replayed.reads.p99, n: replayed.reads.n, failed: replayed.reads.failed }
        : null,
      targets,
      ...(Object.keys(unavailable).length ? { unavailable } : {}),
      details: {
        all_projects: { runs: seeded.runs, traces: seeded.traces, mb: round(seeded.bytes / 1e6, 0) },
        seed: seedCpu
          ? {
              accepted_seconds: round(acceptedSeconds, 1),
              e2e_seconds: round(seedSeconds, 1),
              cores: coresUsed(seedCpu),
            }
          : { reused: options.reuseData },
        merge_wait: { seconds: round(merges.seconds, 0), settled: merges.settled },
        active_parts: Object.fromEntries(parts.map((p) => [p.table, Number(p.parts)])),
        queries: Object.fromEntries(Object.entries(queries).map(([name, q]) => [name, q.details])),
        replay: replayed && {
          events: replayed.events,
          seconds: round(replayed.seconds, 1),
          rows: replayed.rows,
          cores: replayed.cores,
          cpu_us_per_run: replayed.cpuUsPerRun,
          reads: replayed.reads,
        },
        workload: {
          runs_per_trace: options.runsPerTrace,
          big_trace_runs: options.bigTraceRuns,
          days: options.days,
          error_rate: options.errorRate,
          runs_per_thread: options.runsPerThread,
          other_projects: `${options.otherProjects} x ${options.otherProjectRuns} runs`,
          iterations: options.iterations,
          warmup: options.warmup,
          page_size: options.pageSize,
          seed_concurrency: options.concurrency,
        },
      },
    };
    benchRun.finish(result);
  } finally {
    log('cleaning up');
    await cleanup();
  }
}

await main();

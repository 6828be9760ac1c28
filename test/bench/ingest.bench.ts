// Ingestion benchmark (`npm run bench:ingest`): POST /runs/multipart at rising concurrency
// against a stack of our own (API + runs projector as child processes), measured against the
// raw ceiling of the same machine in the same run: the very events the API appends for the
// same traffic, produced straight to a scratch Kafka topic with the same client and settings.
//
// Per concurrency level it reports accepted runs/s (2xx), request latency p50/p99,
// end-to-end runs/s (first request until every accepted run is a row in ClickHouse: the
// projector's committed offsets reach the topic's end, then the rows are counted), freshness
// (2xx until the run is visible in ClickHouse, for a sample of runs, polled), the raw Kafka
// runs/s, and CPU per process (cores busy, and microseconds per run: on a small shared machine
// this says which stage the time goes to). After the levels, the minimal Kafka -> ClickHouse copy
// (copyBaseline.ts) copies the runs topic the projector read into a runs-shaped table: the baseline of the
// projector's and ClickHouse's CPU per run; beside it, the inserts (parts) ClickHouse took per
// 1,000 runs, per table, from the projector and from the copy (clickhouseInserts.ts): most of
// ClickHouse's CPU per run follows them. The JSON line leads with the ratios (our CPU per run
// over the raw producer's and over the copy's, e2e over raw, half-load p99, freshness p99, and
// with BENCH_SUSTAIN_S the RSS growth and throughput drift). Progress goes to stderr; stdout gets exactly one
// JSON line at the end (`npm run -s bench:ingest | tail -1`), also written to
// bench/results/ingest.json (results.ts). Nothing here asserts timings.
//
// Knobs (environment): BENCH_LEVELS=1,4,16,32  BENCH_SECONDS=10  BENCH_RAW_SECONDS (= BENCH_SECONDS)
// BENCH_MAX_RUNS_PER_LEVEL=300000  BENCH_FIRST_LEVEL_RUNS=100000  BENCH_INTERLEAVE=8
// BENCH_SKIP_RAW=1  BENCH_NODE_OPTIONS (NODE_OPTIONS for the API and projector, e.g.
// "--cpu-prof --cpu-prof-dir=.local/prof")  BENCH_STACK_ENV (JSON object of extra stack env,
// e.g. {"TRACING_API_PROCESSES":"2"}).
//
// After the levels: p99 at half the saturating load (BENCH_HALF_SECONDS=30: over 10 s the p99 is
// the 8th slowest of ~800 requests, and moved several-fold between runs of one build; open loop at half the
// best accepted rate, latency counted from each request's scheduled time; BENCH_HALF_SECONDS=0
// skips it). BENCH_SUSTAIN_S=600 then adds a sustained run at BENCH_SUSTAIN_CONCURRENCY (default:
// the best level) over a pool of BENCH_SUSTAIN_RUNS=150000 runs sent again and again (a run sent
// again merges into its row, as a client's retry does), reporting per minute the accepted runs/s,
// p99, the projector's lag, the RSS of the API (all its processes) and of the projector, and the
// CPU per run of each process (other work on the machine lowers the rate, not the CPU a run
// costs): no downward drift and flat memory is the aim.
import { Pool } from 'undici';
import { Admin } from '@platformatic/kafka';
import { createEventProducer, type StringKeyProducer } from '../../platform/kafka/eventLog.ts';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql, join as sqlJoin } from '../../platform/clickhouse/sql.ts';
import { brokerList, topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/apiKeys.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';
import { runsProjectorGroupId } from '../../projections/runsProjector.ts';
import { runsOfTraces } from '../../projections/runs/runsTable.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { TrafficGenerator } from './traceGenerator.ts';
import {
  clickhouseMergeThreads,
  drive,
  infraPids,
  multipartSender,
  pace,
  projectorLag,
  type PhaseResult,
  type Send,
} from './load.ts';
import {
  CpuMeter,
  coresUsed,
  cpuMicrosPer,
  threadCpuMicrosPer,
  referenceJobMs,
  percentile,
  rssMiB,
  round,
  treeRssMiB,
  trendChangePct,
  type CpuReading,
} from './measure.ts';
import { startBenchRun } from './results.ts';
import { COPY_TABLE, measureCopyBaseline, type CopyBaseline } from './copyBaseline.ts';
import { insertCounts, insertsPer1kRuns, type InsertCounts } from './clickhouseInserts.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const options = {
  levels: (env.BENCH_LEVELS ?? '1,4,16,32')
    .split(',')
    .map(Number)
    .filter((n) => n > 0),
  seconds: num('BENCH_SECONDS', 10),
  rawSeconds: num('BENCH_RAW_SECONDS', num('BENCH_SECONDS', 10)),
  maxRunsPerLevel: num('BENCH_MAX_RUNS_PER_LEVEL', 300_000),
  firstLevelRuns: num('BENCH_FIRST_LEVEL_RUNS', 100_000),
  interleave: num('BENCH_INTERLEAVE', 8),
  batchOps: 100,
  runsPerTrace: [10, 30] as const,
  skipRaw: env.BENCH_SKIP_RAW === '1',
  freshnessPollMs: 100,
  freshnessMaxPending: 20,
  drainTimeoutMs: num('BENCH_DRAIN_TIMEOUT_S', 300) * 1000,
  halfSeconds: num('BENCH_HALF_SECONDS', 30),
  sustainSeconds: num('BENCH_SUSTAIN_S', 0),
  sustainConcurrency: num('BENCH_SUSTAIN_CONCURRENCY', 0),
  sustainRuns: num('BENCH_SUSTAIN_RUNS', 150_000),
};

const log = (msg: string) => process.stderr.write(`[bench:ingest] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tenantId = DEFAULT_WORKSPACE_ID;

/** Samples runs at their 2xx and polls ClickHouse (by primary key) until each is visible. */
class FreshnessProbe {
  readonly #ch: ClickHouseClient;
  readonly #pending = new Map<string, { traceId: string; ackAt: number }>();
  readonly samplesMs: number[] = [];
  #running = false;
  #loop: Promise<void> | null = null;

  constructor(ch: ClickHouseClient) {
    this.#ch = ch;
  }

  sample(runId: string, traceId: string, ackAt: number): void {
    if (this.#pending.size < options.freshnessMaxPending) this.#pending.set(runId, { traceId, ackAt });
  }

  get pending(): number {
    return this.#pending.size;
  }

  start(): void {
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        await sleep(options.freshnessPollMs);
        if (this.#pending.size === 0) continue;
        const entries = [...this.#pending];
        const traces = sqlJoin([...new Set(entries.map(([, e]) => e.traceId))].map((t) => sql`toUUID(${t})`));
        const ids = sqlJoin(entries.map(([id]) => sql`toUUID(${id})`));
        const checkedAt = performance.now();
        const rows = await this.#ch
          .query<{ run_id: string }>(
            // As the API finds a trace's runs: their places from run_keys, then those keys of `runs`
            // (a scan of the workspace's runs by trace_id cost ClickHouse ~3.5 µs per ingested run,
            // counted as the product's).
            sql`SELECT toString(id) AS run_id FROM runs
                WHERE tenant_id = toUUID(${tenantId}) AND ${runsOfTraces(LIVE_TABLES.runKeys, tenantId, traces)}
                  AND trace_id IN (${traces}) AND id IN (${ids}) AND has_post = 1`,
          )
          .catch((err: Error) => {
            log(`freshness probe failed: ${err.message.slice(0, 200)}`);
            return [];
          });
        for (const { run_id: id } of rows) {
          const entry = this.#pending.get(id);
          if (!entry) continue;
          this.samplesMs.push(Math.max(0, checkedAt - entry.ackAt));
          this.#pending.delete(id);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}

/** Runs of a session that are rows in ClickHouse; -1 when ClickHouse cannot answer right now. */
async function visibleRuns(ch: ClickHouseClient, sessionName: string): Promise<number> {
  const sessionId = projectIdForName(tenantId, sessionName);
  try {
    const [row] = await ch.query<{ n: string }>(
      sql`SELECT uniqExact(id) AS n FROM runs WHERE tenant_id = toUUID(${tenantId}) AND session_id = toUUID(${sessionId}) AND has_post = 1`,
    );
    return Number(row?.n ?? 0);
  } catch (err) {
    log(`counting rows failed (${(err as Error).message.slice(0, 120)}); retrying`);
    return -1;
  }
}

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  const stackEnv: Record<string, string> = {
    LOG_LEVEL: 'warn',
    ...(env.BENCH_STACK_ENV ? (JSON.parse(env.BENCH_STACK_ENV) as Record<string, string>) : {}),
  };
  if (env.BENCH_NODE_OPTIONS) stackEnv.NODE_OPTIONS = env.BENCH_NODE_OPTIONS;
  log(`starting a tracing stack (levels ${options.levels.join(', ')}; ${options.seconds} s per level)`);
  let stack: TracingStack | null = null;
  let ch: ClickHouseClient | null = null;
  let admin: Admin | null = null;
  let producer: StringKeyProducer | null = null;
  let pool: Pool | null = null;
  let scratchTopic: string | null = null;
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await pool?.close().catch(() => {});
      await producer?.close().catch(() => {});
      if (admin && scratchTopic) await admin.deleteTopics({ topics: [scratchTopic] }).catch(() => {});
      await admin?.close().catch(() => {});
      await ch?.close().catch(() => {});
      await stack?.stop().catch((err: Error) => log(`stack stop failed: ${err.message}`));
    })());
  process.once('SIGINT', () => {
    log('interrupted; cleaning up');
    void cleanup().finally(() => process.exit(130));
  });

  try {
    stack = await startTracingStack('bench', stackEnv);
    const config = stack.config;
    log(
      `stack up: ${stack.url} (api pid ${stack.api.pid}, ${config.TRACING_API_PROCESSES} process(es); projector pid ${stack.projector.pid}, database ${config.CLICKHOUSE_DATABASE})`,
    );
    ch = ClickHouseClient.fromConfig(config);
    pool = new Pool(stack.url, { connections: Math.max(...options.levels), keepAliveTimeout: 60_000 });
    const sendHttp = multipartSender(pool, stack.apiKey, log);

    // The raw ceiling: a scratch topic shaped like the runs topic, and a producer set up like EventLog's.
    admin = new Admin({ clientId: 'bench-admin', bootstrapBrokers: brokerList(config) });
    scratchTopic = `${config.KAFKA_TOPIC_PREFIX}bench.raw-ceiling`;
    await admin.createTopics({ topics: [scratchTopic], partitions: config.KAFKA_PARTITIONS, replicas: 1 });
    producer = createEventProducer(config, 'bench-raw');
    const rawProducer = producer;
    const topic = scratchTopic;
    const sendRaw: Send = async (batch) => {
      try {
        await rawProducer.send({
          messages: batch.events.map((e) => ({ topic, key: e.key, value: e.value, headers: e.headers })),
        });
        return { ok: true, status: '2xx', doneAt: performance.now() };
      } catch (err) {
        return { ok: false, status: (err as Error).name, doneAt: performance.now() };
      }
    };

    const runsTopic = topicName(config, TOPICS.runs);
    const projectorGroup = runsProjectorGroupId(config);
    // Kafka, ClickHouse and MinIO by their pid files (read again per level: they may restart).
    const cpuPids = (): Record<string, number> => ({
      api: stack!.api.pid,
      projector: stack!.projector.pid,
      bench: process.pid,
      ...infraPids(),
    });
    // The API's pid is its primary when it runs as several processes: count its workers with it.
    const meter = () => new CpuMeter(cpuPids(), ['api'], clickhouseMergeThreads());

    // Warm-up (not measured): JIT, connections, the project, the producer's metadata.
    {
      const warm = new TrafficGenerator({
        tenantId,
        sessionName: 'bench-warmup',
        interleave: options.interleave,
        batchOps: options.batchOps,
        minRuns: 10,
        maxRuns: 30,
        seed: 1,
      });
      const batches = warm.batches(3000);
      const w = await drive(batches, 4, 30, false, sendHttp);
      if (w.runs === 0) throw new Error(`warm-up failed: ${JSON.stringify(w.failures)}`);
      if (!options.skipRaw) await drive(batches, 4, 30, false, sendRaw);
      log(`warm-up: ${w.runs} runs accepted; waiting for them in ClickHouse`);
      const waitUntil = Date.now() + 60_000;
      while ((await visibleRuns(ch, 'bench-warmup')) < w.runs && Date.now() < waitUntil) await sleep(500);
    }

    const levels: Array<Record<string, unknown>> = [];
    const all = { runs: 0, sendSeconds: 0, e2eSeconds: 0, latencies: [] as number[], freshness: [] as number[] };
    // Every level's CPU readings (send and drain) and the raw phases', for CPU per run over the whole run.
    const ourReadings: CpuReading[] = [];
    const rawReadings: CpuReading[] = [];
    let rawRuns = 0;
    let bestRate = 0;
    // ClickHouse's insert counts before the first level and after the last one's drain.
    let firstInserts: InsertCounts | null = null;
    let lastInserts: InsertCounts | null = null;
    let runsTarget = options.firstLevelRuns;
    let previousLevel = 0;
    for (const concurrency of options.levels) {
      if (previousLevel > 0)
        runsTarget = Math.min(
          options.maxRunsPerLevel,
          Math.max(20_000, Math.ceil(bestRate * Math.min(2.5, concurrency / previousLevel) * 1.2 * options.seconds)),
        );
      previousLevel = concurrency;
      const sessionName = `bench-c${concurrency}`;
      const genStart = performance.now();
      const batches = new TrafficGenerator({
        tenantId,
        sessionName,
        interleave: options.interleave,
        batchOps: options.batchOps,
        minRuns: options.runsPerTrace[0],
        maxRuns: options.runsPerTrace[1],
        seed: 1000 + concurrency,
      }).batches(runsTarget);
      const poolRuns = batches.reduce((n, b) => n + b.postedRunIds.length, 0);
      const poolBytes = batches.reduce((n, b) => n + b.body.length, 0);
      const eventsPerBatch = batches.reduce((n, b) => n + b.events.length, 0) / batches.length;
      // Generating blocked the event loop: let sockets closed meanwhile (idle keep-alives) be noticed.
      await sleep(200);
      log(
        `c=${concurrency}: generated ${batches.length} batches, ${poolRuns} runs, ${(poolBytes / 1e6).toFixed(0)} MB in ${((performance.now() - genStart) / 1000).toFixed(1)} s (${eventsPerBatch.toFixed(1)} events per request)`,
      );

      // Raw ceiling at this concurrency: the same events, straight to Kafka.
      let raw: PhaseResult | null = null;
      let rawCpu: CpuReading | null = null;
      if (!options.skipRaw) {
        const rawMeter = meter();
        rawMeter.start();
        raw = await drive(batches, concurrency, options.rawSeconds, true, sendRaw);
        rawCpu = rawMeter.stop();
        log(
          `c=${concurrency}: raw Kafka ${(raw.runs / raw.seconds).toFixed(0)} runs/s, p50 ${percentile(raw.latenciesMs, 50)?.toFixed(1)} ms, p99 ${percentile(raw.latenciesMs, 99)?.toFixed(1)} ms; cores ${JSON.stringify(coresUsed(rawCpu))}`,
        );
        await sleep(500);
      }

      // Our path: HTTP -> API -> Kafka -> projector -> ClickHouse.
      const insertsBefore = await insertCounts(ch, config.CLICKHOUSE_DATABASE);
      firstInserts ??= insertsBefore;
      const probe = new FreshnessProbe(ch);
      probe.start();
      const sendMeter = meter();
      sendMeter.start();
      const ours = await drive(batches, concurrency, options.seconds, false, sendHttp, (batch, doneAt) => {
        if (batch.sample) probe.sample(batch.sample.runId, batch.sample.traceId, doneAt);
      });
      const cpu = sendMeter.stop();
      const acceptedRate = ours.runs / ours.seconds;
      log(
        `c=${concurrency}: accepted ${ours.runs} runs in ${ours.seconds.toFixed(1)} s = ${acceptedRate.toFixed(0)} runs/s, p50 ${percentile(ours.latenciesMs, 50)?.toFixed(1)} ms, p99 ${percentile(ours.latenciesMs, 99)?.toFixed(1)} ms${Object.keys(ours.failures).length ? `, failures ${JSON.stringify(ours.failures)}` : ''}; cores ${JSON.stringify(coresUsed(cpu))}`,
      );

      // End to end: until every accepted run of this level is a row in ClickHouse.
      const drainMeter = meter();
      drainMeter.start();
      let visible = 0;
      let doneAt = 0;
      const drainDeadline = performance.now() + options.drainTimeoutMs;
      while (performance.now() < drainDeadline) {
        const checkedAt = performance.now();
        if ((await projectorLag(admin, runsTopic, projectorGroup, config.KAFKA_PARTITIONS, log)) !== 0n) {
          await sleep(25);
          continue;
        }
        // Lag 0: confirm with the rows themselves (a run missing here would be a bug, not a wait).
        visible = await visibleRuns(ch, sessionName);
        if (visible >= ours.runs) {
          doneAt = checkedAt;
          break;
        }
        await sleep(250);
      }
      const drainCpu = drainMeter.stop();
      lastInserts = await insertCounts(ch, config.CLICKHOUSE_DATABASE);
      const inserts = insertsPer1kRuns(insertsBefore, lastInserts, ours.runs, [COPY_TABLE]);
      const e2eSeconds = doneAt ? (doneAt - ours.firstStartAt) / 1000 : null;
      const e2eRate = e2eSeconds ? ours.runs / e2eSeconds : null;
      // Let the last samples land, then stop probing.
      const probeDeadline = Date.now() + 5000;
      while (probe.pending > 0 && Date.now() < probeDeadline) await sleep(50);
      await probe.stop();
      log(
        `c=${concurrency}: end to end ${e2eRate?.toFixed(0) ?? 'incomplete'} runs/s (${visible}/${ours.runs} visible after ${e2eSeconds?.toFixed(1) ?? '-'} s), freshness p50 ${percentile(probe.samplesMs, 50)?.toFixed(0)} ms p99 ${percentile(probe.samplesMs, 99)?.toFixed(0)} ms; drain cores ${JSON.stringify(coresUsed(drainCpu))}; cpu us/run ${JSON.stringify(cpuMicrosPer(ours.runs, cpu, drainCpu))}; ClickHouse inserts per 1k runs ${JSON.stringify(inserts)}`,
      );

      const rawRate = raw ? raw.runs / raw.seconds : null;
      bestRate = Math.max(bestRate, acceptedRate);
      all.runs += ours.runs;
      all.sendSeconds += ours.seconds;
      if (e2eSeconds) all.e2eSeconds += e2eSeconds;
      all.latencies.push(...ours.latenciesMs);
      all.freshness.push(...probe.samplesMs);
      ourReadings.push(cpu, drainCpu);
      if (raw && rawCpu) {
        rawReadings.push(rawCpu);
        rawRuns += raw.runs;
      }
      levels.push({
        concurrency,
        requests: ours.requests,
        runs: ours.runs,
        ops: ours.ops,
        seconds: round(ours.seconds, 2),
        ended_by: ours.endedBy,
        failures: ours.failures,
        accepted_runs_per_s: round(acceptedRate, 0),
        accepted_mb_per_s: round(ours.bytes / 1e6 / ours.seconds, 1),
        e2e_runs_per_s: round(e2eRate, 0),
        e2e_seconds: round(e2eSeconds, 2),
        p50_ms: round(percentile(ours.latenciesMs, 50)),
        p99_ms: round(percentile(ours.latenciesMs, 99)),
        freshness_p50_ms: round(percentile(probe.samplesMs, 50), 0),
        freshness_p99_ms: round(percentile(probe.samplesMs, 99), 0),
        freshness_samples: probe.samplesMs.length,
        raw_kafka_runs_per_s: round(rawRate, 0),
        raw_p50_ms: raw ? round(percentile(raw.latenciesMs, 50)) : null,
        raw_p99_ms: raw ? round(percentile(raw.latenciesMs, 99)) : null,
        ratio_to_raw: rawRate ? round(acceptedRate / rawRate, 3) : null,
        e2e_ratio_to_raw: rawRate && e2eRate ? round(e2eRate / rawRate, 3) : null,
        // Cores busy per process while sending, while draining, and during the raw phase; and
        // CPU microseconds per run (send + drain): the cost of each stage, robust to a busy machine.
        cpu_cores: { send: coresUsed(cpu), drain: coresUsed(drainCpu), raw: rawCpu ? coresUsed(rawCpu) : null },
        cpu_us_per_run: cpuMicrosPer(ours.runs, cpu, drainCpu),
        // Of ClickHouse's: its background merges (the rest is its inserts and the freshness probe's reads).
        clickhouse_merge_cpu_us_per_run: threadCpuMicrosPer(ours.runs, cpu, drainCpu).clickhouse_merges ?? null,
        // ClickHouse inserts (parts) per 1,000 runs, by table: what most of its CPU per run follows.
        clickhouse_inserts_per_1k_runs: inserts,
        raw_cpu_us_per_run: raw && rawCpu ? cpuMicrosPer(raw.runs, rawCpu) : null,
      });
    }

    // The least a Kafka -> ClickHouse hop needs: the runs topic the projector has just read (the
    // warm-up's and the levels' events) copied again into a runs-shaped table.
    const copy: CopyBaseline = await measureCopyBaseline(stack.env, ch, runsTopic, log);

    // Latency at half the saturating load: open loop at half the best accepted rate.
    let half: Record<string, unknown> | null = null;
    if (options.halfSeconds > 0 && bestRate > 0) {
      const rate = bestRate / 2;
      const batches = new TrafficGenerator({
        tenantId,
        sessionName: 'bench-half',
        interleave: options.interleave,
        batchOps: options.batchOps,
        minRuns: options.runsPerTrace[0],
        maxRuns: options.runsPerTrace[1],
        seed: 7,
      }).batches(Math.ceil(rate * options.halfSeconds * 1.1));
      await sleep(200);
      const halfMeter = meter();
      halfMeter.start();
      const startedAt = Date.now();
      const halfProbe = new FreshnessProbe(ch);
      halfProbe.start();
      const paced = await pace(batches, rate, options.halfSeconds, sendHttp, (batch, doneAt) => {
        if (batch.sample) halfProbe.sample(batch.sample.runId, batch.sample.traceId, doneAt);
      });
      const halfCpu = halfMeter.stop();
      // The runs sampled last become visible after the phase: wait for them (a few seconds at most).
      const probeDeadline = performance.now() + 30_000;
      while (halfProbe.pending > 0 && performance.now() < probeDeadline) await sleep(100);
      await halfProbe.stop();
      half = {
        // Wall clock, for test/bench/latencyReport.ts --from/--to over this phase.
        started_at: startedAt,
        ended_at: Date.now(),
        target_runs_per_s: round(rate, 0),
        accepted_runs_per_s: round(paced.runs / paced.seconds, 0),
        p50_ms: round(percentile(paced.latenciesMs, 50)),
        p99_ms: round(percentile(paced.latenciesMs, 99)),
        freshness_p50_ms: round(percentile(halfProbe.samplesMs, 50), 0),
        freshness_p99_ms: round(percentile(halfProbe.samplesMs, 99), 0),
        freshness_samples: halfProbe.samplesMs.length,
        failures: paced.failures,
        cpu_cores: coresUsed(halfCpu),
      };
      log(
        `half load (${rate.toFixed(0)} runs/s, open loop): p50 ${half.p50_ms} ms, p99 ${half.p99_ms} ms, freshness p50 ${half.freshness_p50_ms} ms p99 ${half.freshness_p99_ms} ms; cores ${JSON.stringify(half.cpu_cores)}`,
      );
      const drainDeadline = performance.now() + options.drainTimeoutMs;
      while (
        (await projectorLag(admin, runsTopic, projectorGroup, config.KAFKA_PARTITIONS, log)) !== 0n &&
        performance.now() < drainDeadline
      )
        await sleep(250);
    }

    // Sustained: the same pool sent again and again; per minute its rate, p99, lag and memory.
    let sustained: Record<string, unknown> | null = null;
    if (options.sustainSeconds > 0) {
      const concurrency =
        options.sustainConcurrency ||
        Number(
          levels.length
            ? [...levels].sort((a, b) => Number(b.accepted_runs_per_s) - Number(a.accepted_runs_per_s))[0]!.concurrency
            : 16,
        );
      const pool = new TrafficGenerator({
        tenantId,
        sessionName: 'bench-sustained',
        interleave: options.interleave,
        batchOps: options.batchOps,
        minRuns: options.runsPerTrace[0],
        maxRuns: options.runsPerTrace[1],
        seed: 11,
      }).batches(options.sustainRuns);
      await sleep(200);
      log(
        `sustained: ${options.sustainSeconds} s at ${concurrency} concurrent requests over a pool of ${options.sustainRuns} runs`,
      );
      const minutes: Array<Record<string, unknown>> = [];
      let offset = 0;
      const sustainMeter = meter();
      sustainMeter.start();
      for (let done = 0; done < options.sustainSeconds; done += 60) {
        const seconds = Math.min(60, options.sustainSeconds - done);
        const rotated = pool.slice(offset).concat(pool.slice(0, offset));
        const minuteMeter = meter();
        minuteMeter.start();
        const minute = await drive(rotated, concurrency, seconds, true, sendHttp);
        const minuteCpu = minuteMeter.stop();
        offset = (offset + minute.requests) % pool.length;
        const lag = await projectorLag(admin, runsTopic, projectorGroup, config.KAFKA_PARTITIONS, log);
        const row = {
          minute: minutes.length + 1,
          accepted_runs_per_s: round(minute.runs / minute.seconds, 0),
          p99_ms: round(percentile(minute.latenciesMs, 99)),
          failures: minute.failures,
          projector_lag_events: lag === null ? null : Number(lag),
          api_rss_mib: round(treeRssMiB(stack.api.pid), 0),
          projector_rss_mib: round(rssMiB(stack.projector.pid), 0),
          // A busy machine lowers the rate but not the CPU each run costs: drift in our code shows here,
          // unless the machine itself slowed down, which the reference job's CPU time shows.
          cpu_us_per_run: cpuMicrosPer(minute.runs, minuteCpu),
          reference_job_ms: referenceJobMs(),
          cores: coresUsed(minuteCpu),
          // Cores' worth of time the host kept from this machine: when it rises, every process's CPU per run does.
          steal_cores:
            minuteCpu.stealSeconds === null ? null : round(minuteCpu.stealSeconds / minuteCpu.wallSeconds, 2),
        };
        minutes.push(row);
        log(
          `sustained minute ${row.minute}: ${row.accepted_runs_per_s} runs/s, p99 ${row.p99_ms} ms, lag ${row.projector_lag_events} events, RSS api ${row.api_rss_mib} MiB, projector ${row.projector_rss_mib} MiB, steal ${row.steal_cores} cores; cpu us/run ${JSON.stringify(row.cpu_us_per_run)}`,
        );
      }
      const sustainCpu = sustainMeter.stop();
      const rates = minutes.map((m) => Number(m.accepted_runs_per_s));
      sustained = {
        seconds: options.sustainSeconds,
        concurrency,
        pool_runs: options.sustainRuns,
        per_minute: minutes,
        // Last minute against the first: below 1 is downward drift.
        last_to_first_rate: rates.length > 1 ? round(rates.at(-1)! / rates[0]!, 3) : null,
        api_rss_growth_mib:
          minutes.length > 1 ? round(Number(minutes.at(-1)!.api_rss_mib) - Number(minutes[0]!.api_rss_mib), 0) : null,
        projector_rss_growth_mib:
          minutes.length > 1
            ? round(Number(minutes.at(-1)!.projector_rss_mib) - Number(minutes[0]!.projector_rss_mib), 0)
            : null,
        cpu_cores: coresUsed(sustainCpu),
      };
    }

    // Headline: the level with the best end-to-end rate; the raw ceiling is the best raw level.
    const best = [...levels].sort((a, b) => Number(b.e2e_runs_per_s ?? 0) - Number(a.e2e_runs_per_s ?? 0))[0]!;
    const rawBest = levels.reduce((m, l) => Math.max(m, Number(l.raw_kafka_runs_per_s ?? 0)), 0) || null;
    // CPU per run of each process over every level (send and drain), and of the raw producer.
    const ourUs = cpuMicrosPer(all.runs, ...ourReadings);
    const ourMergeUs = threadCpuMicrosPer(all.runs, ...ourReadings).clickhouse_merges ?? null;
    const rawUs = rawRuns > 0 ? cpuMicrosPer(rawRuns, ...rawReadings) : {};
    const ratio = (a: number | null | undefined, b: number | null | undefined) =>
      a == null || b == null || b === 0 ? null : round(a / b, 2);
    const minutes = (sustained?.per_minute ?? []) as Array<Record<string, number>>;
    const growthPct = (key: string) =>
      minutes.length > 1 && minutes[0]![key]
        ? ((minutes.at(-1)![key]! - minutes[0]![key]!) / minutes[0]![key]!) * 100
        : null;
    const rssGrowth = [growthPct('api_rss_mib'), growthPct('projector_rss_mib')].filter((g) => g !== null);
    const trend = (key: string) => trendChangePct(minutes.map((m) => m[key]!).filter((v) => typeof v === 'number'));
    if (sustained && minutes.length > 1)
      sustained.first_to_last_pct = {
        accepted_runs_per_s: round(growthPct('accepted_runs_per_s'), 1),
        reference_job_ms: round(growthPct('reference_job_ms'), 1),
      };
    const result = {
      bench: 'ingest',
      // The ratios first: each hop's cost against the least its engine needs, in this run.
      api_cpu_ratio_to_raw_producer: ratio(ourUs.api, rawUs.bench),
      projector_cpu_ratio_to_copy: ratio(ourUs.projector, copy.copy_cpu_us_per_run),
      clickhouse_cpu_ratio_to_copy: ratio(ourUs.clickhouse, copy.clickhouse_cpu_us_per_run),
      half_load_p99_ms: half ? half.p99_ms : null,
      half_load_freshness_p99_ms: half ? half.freshness_p99_ms : null,
      sustained_rss_growth_pct: rssGrowth.length ? round(Math.max(...rssGrowth), 1) : null,
      // The trend of the minutes' throughput (a least-squares line, its change from the first minute
      // to the last): the minutes scatter by ±5–10 % on this machine, so the last against the first
      // measured the scatter (sustained.first_to_last_pct keeps those figures).
      sustained_throughput_drift_pct: trend('accepted_runs_per_s'),
      // The machine's own drift over those minutes (the reference job's CPU, its trend likewise): a
      // throughput that fell as much as the machine slowed is the host's, not our code's.
      sustained_machine_slowdown_pct: trend('reference_job_ms'),
      cpu_us_per_run: { ...ourUs, raw_producer: rawUs.bench ?? null },
      // Of ClickHouse's CPU per run, its background merges' (CpuMeter thread group): the rest is its
      // inserts and the freshness probe's reads. The copy baseline says the same of its own.
      clickhouse_merge_cpu_us_per_run: ourMergeUs,
      copy_baseline: copy,
      // Parts ClickHouse made per 1,000 runs, the projector's (every table, every level) and the copy's.
      clickhouse_inserts_per_1k_runs:
        firstInserts && lastInserts ? insertsPer1kRuns(firstInserts, lastInserts, all.runs, [COPY_TABLE]) : null,
      accepted_runs_per_s: best.accepted_runs_per_s,
      e2e_runs_per_s: best.e2e_runs_per_s,
      p50_ms: best.p50_ms,
      p99_ms: best.p99_ms,
      freshness_p99_ms: best.freshness_p99_ms,
      raw_kafka_runs_per_s: rawBest,
      ratio_to_raw: rawBest ? round(Number(best.accepted_runs_per_s) / rawBest, 3) : null,
      e2e_ratio_to_raw: rawBest && best.e2e_runs_per_s ? round(Number(best.e2e_runs_per_s) / rawBest, 3) : null,
      best_concurrency: best.concurrency,
      api_processes: config.TRACING_API_PROCESSES,
      half_load: half,
      sustained,
      overall: {
        runs: all.runs,
        accepted_runs_per_s: round(all.runs / all.sendSeconds, 0),
        e2e_runs_per_s: all.e2eSeconds ? round(all.runs / all.e2eSeconds, 0) : null,
        p50_ms: round(percentile(all.latencies, 50)),
        p99_ms: round(percentile(all.latencies, 99)),
        freshness_p99_ms: round(percentile(all.freshness, 99), 0),
      },
      levels,
      workload: {
        runs_per_trace: options.runsPerTrace,
        ops_per_batch: options.batchOps,
        traces_in_flight: options.interleave,
        parts_per_run: 'post.<id> + .inputs + .outputs + .extra (root: post then patch)',
        seconds_per_level: options.seconds,
        freshness: `2xx until visible in ClickHouse, polled every ${options.freshnessPollMs} ms`,
      },
    };
    benchRun.finish(result);
  } finally {
    log('cleaning up');
    await cleanup();
  }
}

await main();

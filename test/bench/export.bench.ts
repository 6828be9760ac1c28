// Export benchmark (`npm run bench:export`): the bulk-export pipeline (ClickHouse → Arrow →
// Parquet → S3) over 1,000,000 runs, against a baseline measured in the same run.
//
// It seeds a scratch database straight by INSERT … SELECT: one project of BENCH_RUNS runs over
// BENCH_DAYS UTC days (traces of 10 runs: a chain root and its children; inputs, outputs and
// extra of a few hundred bytes of JSON, a few tags, 2% errors, LLM runs with usage and a first
// token), plus another project with a tenth as many runs in the same tenant; then waits for
// ClickHouse's background merges to settle. The export is timed as the worker runs it: one
// export run per UTC day (BENCH_CONCURRENCY at a time), each through exportRunsToParquet into a
// MinIO bucket. The baseline is the raw read of the same rows: the same queries in the same
// format (RowBinary), read the same way (dayStreams: hourly slices, each sent while the last is
// read), at the same concurrency, bytes read and discarded. It runs first (after one untimed read
// that warms ClickHouse's caches), then the read of one query per day (the baseline before the
// export read in slices, for comparison: ratio_to_read_by_day), then the export with each compression in
// BENCH_COMPRESSIONS, each in a fresh child process (so its peak RSS is its own: what a worker
// doing that export holds); the first one (the service's default) gives the headline figures.
// Progress goes to stderr; stdout gets exactly one JSON line (`npm run -s bench:export | tail -1`),
// also written to bench/results/export.json (results.ts).
//
// Knobs: BENCH_RUNS=1000000  BENCH_DAYS=5  BENCH_CONCURRENCY=1  BENCH_FEEDBACK=0 (share of
// roots with feedback, e.g. 0.05: exercises the per-batch feedback_stats query)
// BENCH_COMPRESSIONS=<default>,zstandard,snappy,none  BENCH_MAX_FILE_MB=128  BENCH_KEEP=1 (keep
// the database and bucket; names go to stderr)  BENCH_DB=<name> (reuse a kept database).
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { provideInfra } from '../support/infra.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql } from '../../platform/clickhouse/sql.ts';
import { settleMerges } from './clickhouseMerges.ts';
import { createReadModelTables } from '../../projections/readModels.ts';
import { loadConfig } from '../../platform/config.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import {
  EXPORT_COMPRESSIONS,
  type ExportCompression,
  type ExportRunTask,
} from '../../services/bulk-export/exportTypes.ts';
import { exportPlan, exportRunsToParquet } from '../../services/bulk-export/parquet/runsExport.ts';
import { dayStreams } from '../../services/bulk-export/parquet/exportFiles.ts';
import { exportRunsQuery } from '../../services/bulk-export/parquet/exportQuery.ts';
import { exportWorkerProcessEnv } from '../../services/processes/exportWorkerProcess.ts';
import { infraPids } from './load.ts';
import { CpuMeter, coresUsed, round } from './measure.ts';
import { startBenchRun } from './results.ts';

const env = process.env;
const config = loadConfig();
const options = {
  runs: Number(env.BENCH_RUNS ?? 1_000_000),
  days: Number(env.BENCH_DAYS ?? 5),
  concurrency: Number(env.BENCH_CONCURRENCY ?? 1),
  feedbackShare: Number(env.BENCH_FEEDBACK ?? 0),
  compressions: (
    env.BENCH_COMPRESSIONS ??
    [...new Set([config.FF_BULK_EXPORT_DEFAULT_COMPRESSION, 'zstandard', 'snappy', 'none'])].join(',')
  ).split(',') as ExportCompression[],
  maxFileBytes: Number(env.BENCH_MAX_FILE_MB ?? 128) * 1024 * 1024,
  keep: env.BENCH_KEEP === '1' || env.BENCH_DB !== undefined,
  reuse: env.BENCH_DB ?? null,
};
// Issue 18: at least 0.8 × the raw read with every codec, under 300 MB whatever the export's size.
const targets = { rows_per_s: 200_000, ratio: 0.8, peak_rss_mb: 300 };

const TENANT = '11111111-1111-4111-8111-111111111111';
const PROJECT = '22222222-2222-4222-8222-222222222222';
const OTHER_PROJECT = '33333333-3333-4333-8333-333333333333';
const DAY_US = 86_400_000_000;
const FIRST_DAY = Date.UTC(2025, 0, 6) * 1000;

const log = (msg: string) => process.stderr.write(`[bench:export] ${msg}\n`);

for (const c of options.compressions)
  if (!(EXPORT_COMPRESSIONS as readonly string[]).includes(c))
    throw new Error(`unknown compression in BENCH_COMPRESSIONS: ${c}`);
if (!(options.runs > 0 && options.days > 0 && options.concurrency > 0))
  throw new Error('BENCH_RUNS, BENCH_DAYS and BENCH_CONCURRENCY must be positive');

// ---- seeding ----

/** A deterministic UUID (v4 layout) from a ClickHouse expression. */
const uuidOf = (seed: string) => {
  const h1 = `hex(bitOr(sipHash64(${seed}), 0x1000000000000000))`;
  const h2 = `hex(bitOr(sipHash64(${seed}, 1), 0x1000000000000000))`;
  return `toUUID(concat(substring(${h1}, 1, 8), '-', substring(${h1}, 9, 4), '-4', substring(${h1}, 14, 3), '-8', substring(${h2}, 2, 3), '-', substring(${h2}, 5, 12)))`;
};
/** YYYYMMDDTHHMMSSffffffZ of a microsecond time, as in dotted_order. */
const dottedTime = (us: string) =>
  `concat(formatDateTime(toDateTime(intDiv(${us}, 1000000)), '%Y%m%dT%H%M%S', 'UTC'), substring(toString(1000000 + ${us} % 1000000), 2), 'Z')`;

/** Inserts `runs` runs of a project over the days, server-side, in chunks; run n of trace intDiv(n, 10) is its (n % 10)-th run. */
async function seedProject(ch: ClickHouseClient, project: string, runs: number, salt: number): Promise<void> {
  const spacing = Math.floor((options.days * DAY_US) / runs);
  const chunk = 250_000;
  for (let from = 0; from < runs; from += chunk) {
    const count = Math.min(chunk, runs - from);
    await ch.exec(
      raw(`INSERT INTO runs (tenant_id, trace_id, id, session_id, parent_run_id, dotted_order, name, run_type, status, start_time, end_time,
        inputs, outputs, events, extra, serialized, payload_refs, error, tags, reference_example_id, attachments, thread_id, metadata_keys,
        metadata_values, usage, prompt_tokens, completion_tokens, total_tokens, prompt_cost, completion_cost, total_cost, first_token_time,
        is_root, has_post, received_at, version)
      SELECT toUUID('${TENANT}'), trace_id, id, toUUID('${project}'), if(k = 0, NULL, trace_id),
        if(k = 0, root_segment, concat(root_segment, '.', ${dottedTime('start_us')}, toString(id))),
        ['agent', 'ChatOpenAI', 'search', 'retriever', 'parser'][k % 5 + 1], ['chain', 'llm', 'tool', 'retriever', 'parser'][k % 5 + 1],
        if(n % 50 = 7, 'error', 'success'), start_us, start_us + 100000 + (n % 97) * 10000,
        concat('{"messages":[{"role":"user","content":"Question ', toString(n), ': what is the capital of country number ', toString(n % 193), ' and why does it matter for the report?"}],"temperature":0.2}'),
        concat('{"generations":[{"text":"The capital of country ', toString(n % 193), ' is City-', toString(n % 1000), '. It matters because the report compares regional data.","finish_reason":"stop"}],"llm_output":{"model":"gpt-4o-mini"}}'),
        if(k % 5 = 1, '[{"name":"new_token","time":"2025-01-06T00:00:00.000000Z","kwargs":{"token":"The"}}]', ''),
        concat('{"metadata":{"user_id":"user-', toString(n % 997), '","ls_provider":"openai","ls_model_name":"gpt-4o-mini"},"runtime":{"sdk":"langsmith-js","sdk_version":"0.3.7"}}'),
        '', '{}', if(n % 50 = 7, 'ValueError: the tool failed to answer', NULL),
        if(k = 0, ['production', 'agent-v2', concat('user-', toString(n % 7))], ['production', 'agent-v2']),
        NULL, '[]', '', [], [], '',
        if(k % 5 = 1, 120 + n % 400, 0), if(k % 5 = 1, 40 + n % 200, 0), if(k % 5 = 1, 160 + n % 400 + n % 200, 0),
        if(k % 5 = 1, 0.00012, 0), if(k % 5 = 1, 0.00024, 0), if(k % 5 = 1, 0.00036, 0),
        if(k % 5 = 1, start_us + 50000, NULL), k = 0, 1, start_us, 1
      FROM (
        SELECT n, k, start_us, id, trace_id, concat(${dottedTime('root_us')}, toString(trace_id)) AS root_segment
        FROM (
          SELECT number AS n, n % 10 AS k, ${FIRST_DAY} + intDiv(n, 10) * 10 * ${spacing} AS root_us, root_us + k * 1000 AS start_us,
            ${uuidOf(`n + ${salt}`)} AS id, ${uuidOf(`n - k + ${salt}`)} AS trace_id
          FROM numbers(${from}, ${count})))`),
    );
  }
}

async function seed(ch: ClickHouseClient): Promise<void> {
  await createReadModelTables(ch, LIVE_TABLES);
  await seedProject(ch, PROJECT, options.runs, 0);
  await seedProject(ch, OTHER_PROJECT, Math.ceil(options.runs / 10), 1_000_000_000);
  if (options.feedbackShare > 0)
    await ch.exec(
      raw(`INSERT INTO feedback (tenant_id, run_id, id, trace_id, session_id, key, score, value, comment, correction, feedback_source, created_at, version)
        SELECT tenant_id, id, generateUUIDv4(), trace_id, session_id, 'correctness', toFloat64(cityHash64(toString(id)) % 2), '', NULL, '', 'api', start_time, 1
        FROM runs WHERE is_root = 1 AND cityHash64(toString(id)) % 10000 < ${Math.round(options.feedbackShare * 10000)}`),
    );
}

// ---- timing ----

const dayTasks = (compression: ExportCompression): ExportRunTask[] => {
  const exportId = randomUUID();
  return Array.from({ length: options.days }, (_, d) => ({
    tenantId: TENANT,
    sessionId: PROJECT,
    exportId,
    runId: randomUUID(),
    attempt: 0,
    startMicros: FIRST_DAY + d * DAY_US,
    endMicros: FIRST_DAY + (d + 1) * DAY_US,
    formatVersion: 'v2_beta',
    compression,
    exportFields: null,
    filter: null,
    resumeAfter: null,
  }));
};

/** Runs `work` over the items, `concurrency` at a time. */
async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) results.push(await work(items[next++]!));
    }),
  );
  return results;
}

interface Timed {
  seconds: number;
  cores: Record<string, number | null>;
  /** Highest resident set size of this process seen while it ran (sampled every 20 ms). */
  peakRssMb: number;
}

async function timed<R>(work: () => Promise<R>): Promise<R & Timed> {
  const meter = new CpuMeter({ node: process.pid, ...infraPids() });
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  meter.start();
  try {
    const result = await work();
    const reading = meter.stop();
    return { ...result, seconds: reading.wallSeconds, cores: coresUsed(reading), peakRssMb: peakRss / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

/** The raw read: the export runs' own queries (exportPlan), read as the export reads them (dayStreams), bytes counted and dropped. */
async function rawRead(ch: ClickHouseClient): Promise<{ rows: number; bytes: number }> {
  const bytes = await pool(dayTasks('none'), options.concurrency, async (t) => {
    let n = 0;
    for await (const day of dayStreams(ch, (await exportPlan({ ch, tables: LIVE_TABLES }, t)).days))
      for await (const chunk of day.body) n += chunk.length;
    return n;
  });
  return { rows: options.runs, bytes: bytes.reduce((a, b) => a + b, 0) };
}

/**
 * The raw read as the export did it before it read in slices: one query per day (the sort of
 * the whole day before its first row), sent once the day before was read. For comparison with
 * earlier figures.
 */
async function rawReadByDay(ch: ClickHouseClient): Promise<{ rows: number; bytes: number }> {
  const bytes = await pool(dayTasks('none'), options.concurrency, async (t) => {
    const { queryColumns } = await exportPlan({ ch, tables: LIVE_TABLES }, t);
    const window = {
      tenantId: t.tenantId,
      sessionId: t.sessionId,
      startMicros: t.startMicros,
      endMicros: t.endMicros,
      after: null,
      filter: null,
    };
    let n = 0;
    for await (const chunk of await ch.queryStream(
      exportRunsQuery(LIVE_TABLES.runs, queryColumns, window),
      'RowBinary',
    ))
      n += chunk.length;
    return n;
  });
  return { rows: options.runs, bytes: bytes.reduce((a, b) => a + b, 0) };
}

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  const infra = await provideInfra();
  const database = options.reuse ?? `ebench_${randomBytes(3).toString('hex')}`;
  const bucket = `bench-export-${randomBytes(3).toString('hex')}`;
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  const s3 = new S3Client({
    endpoint: infra.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: infra.s3AccessKeyId, secretAccessKey: infra.s3SecretAccessKey },
  });
  const blobs = new BlobStore({
    ...config,
    S3_ENDPOINT: infra.s3Endpoint,
    S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
  });
  const cleanup = async () => {
    if (!options.keep) {
      for (;;) {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
        if (!page.Contents?.length) break;
        await s3.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: page.Contents.map((o) => ({ Key: o.Key! })) },
          }),
        );
      }
      await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
      await ch.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`, { database: null });
    } else log(`kept database ${database} and bucket ${bucket}`);
    s3.destroy();
    blobs.close();
    await ch.close();
  };
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  try {
    if (!options.reuse) {
      const start = performance.now();
      await ch.exec(sql`CREATE DATABASE ${ident(database)}`, { database: null });
      await seed(ch);
      log(
        `seeded ${options.runs} runs (+${Math.ceil(options.runs / 10)} in another project) over ${options.days} days into ${database} in ${((performance.now() - start) / 1000).toFixed(1)} s`,
      );
    }
    // ClickHouse's merges of the fresh parts would compete with the timing.
    if (!(await settleMerges(ch, database, 300_000)).settled)
      log('merges still running after 5 minutes; timing anyway');

    log('warming up: one untimed raw read');
    await rawRead(ch);
    const baseline = await timed(() => rawRead(ch));
    const rawRowsPerS = baseline.rows / baseline.seconds;
    log(
      `raw read: ${baseline.rows} rows, ${(baseline.bytes / 1e6).toFixed(0)} MB in ${baseline.seconds.toFixed(2)} s = ${Math.round(rawRowsPerS)} rows/s, peak RSS ${baseline.peakRssMb.toFixed(0)} MB; cores ${JSON.stringify(baseline.cores)}`,
    );
    const byDay = await timed(() => rawReadByDay(ch));
    const byDayRowsPerS = byDay.rows / byDay.seconds;
    log(
      `raw read by day (one query a day, as before slices): ${byDay.seconds.toFixed(2)} s = ${Math.round(byDayRowsPerS)} rows/s; cores ${JSON.stringify(byDay.cores)}`,
    );

    const exports = [];
    for (const compression of options.compressions) {
      const run = await exportInChild(database, bucket, compression);
      if (run.rows !== baseline.rows)
        throw new Error(`the export wrote ${run.rows} rows, the project has ${baseline.rows}`);
      const rowsPerS = run.rows / run.seconds;
      log(
        `export ${compression}: ${run.rows} rows in ${run.files} files (${(run.parquetBytes / 1e6).toFixed(0)} MB of Parquet) in ${run.seconds.toFixed(2)} s = ${Math.round(rowsPerS)} rows/s, ratio ${(rowsPerS / rawRowsPerS).toFixed(2)} (${(rowsPerS / byDayRowsPerS).toFixed(2)} to the read by day), peak RSS ${run.peakRssMb.toFixed(0)} MB; cores ${JSON.stringify(run.cores)}`,
      );
      exports.push({ compression, ...run, rowsPerS });
    }

    const [headline] = exports;
    const result = {
      bench: 'export',
      // The ratios first: export rows/s per codec over the raw ClickHouse read of the same rows.
      ...Object.fromEntries(exports.map((e) => [`ratio_${e.compression}`, round(e.rowsPerS / rawRowsPerS, 2)])),
      rows: headline!.rows,
      compression: headline!.compression,
      seconds: round(headline!.seconds, 2),
      rows_per_s: round(headline!.rowsPerS, 0),
      /** ClickHouse data (RowBinary bytes of the rows) exported per second. */
      mb_per_s: round(baseline.bytes / 1e6 / headline!.seconds, 1),
      parquet_mb_per_s: round(headline!.parquetBytes / 1e6 / headline!.seconds, 1),
      /** Of the process that ran the export. */
      peak_rss_mb: round(headline!.peakRssMb, 0),
      raw_rows_per_s: round(rawRowsPerS, 0),
      raw_mb_per_s: round(baseline.bytes / 1e6 / baseline.seconds, 1),
      ratio: round(headline!.rowsPerS / rawRowsPerS, 2),
      /** To the raw read of one query per day (the baseline before the export read in slices). */
      ratio_to_read_by_day: round(headline!.rowsPerS / byDayRowsPerS, 2),
      targets,
      details: {
        by_compression: Object.fromEntries(
          exports.map((e) => [
            e.compression,
            {
              rows_per_s: round(e.rowsPerS, 0),
              ratio: round(e.rowsPerS / rawRowsPerS, 2),
              ratio_to_read_by_day: round(e.rowsPerS / byDayRowsPerS, 2),
              seconds: round(e.seconds, 2),
              peak_rss_mb: round(e.peakRssMb, 0),
              files: e.files,
              parquet_mb: round(e.parquetBytes / 1e6, 1),
              cores: e.cores,
            },
          ]),
        ),
        raw: {
          seconds: round(baseline.seconds, 2),
          clickhouse_mb: round(baseline.bytes / 1e6, 0),
          peak_rss_mb: round(baseline.peakRssMb, 0),
          cores: baseline.cores,
        },
        raw_by_day: { rows_per_s: round(byDayRowsPerS, 0), seconds: round(byDay.seconds, 2), cores: byDay.cores },
        workload: {
          days: options.days,
          export_runs: options.days,
          concurrency: options.concurrency,
          feedback_share: options.feedbackShare,
          max_file_mb: options.maxFileBytes / 1024 / 1024,
          other_project_runs: Math.ceil(options.runs / 10),
        },
      },
    };
    benchRun.finish(result);
  } finally {
    log('cleaning up');
    await cleanup();
  }
}

interface ExportFigures extends Timed {
  rows: number;
  files: number;
  parquetBytes: number;
}

/** Runs the export of every day in a fresh process of this file (`--export <database> <bucket> <compression>`). */
async function exportInChild(database: string, bucket: string, compression: ExportCompression): Promise<ExportFigures> {
  const child = spawn(process.execPath, [import.meta.filename, '--export', database, bucket, compression], {
    env: { ...process.env, ...exportWorkerProcessEnv(process.env) }, // as services/main.ts runs the export worker
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`the export of ${compression} failed (exit ${code})`);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ExportFigures;
}

/** The child: exports every day of the project, prints its figures as one JSON line. */
async function exportChild(database: string, bucket: string, compression: ExportCompression): Promise<void> {
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  const s3 = new S3Client({
    endpoint: infra.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: infra.s3AccessKeyId, secretAccessKey: infra.s3SecretAccessKey },
  });
  const blobs = new BlobStore({
    ...config,
    S3_ENDPOINT: infra.s3Endpoint,
    S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
  });
  const figures: ExportFigures = await timed(async () => {
    const results = await pool(dayTasks(compression), options.concurrency, (t) =>
      exportRunsToParquet(
        {
          ch,
          tables: { runs: LIVE_TABLES.runs, runKeys: LIVE_TABLES.runKeys, feedback: LIVE_TABLES.feedback },
          blobs,
          s3,
        },
        t,
        { bucket, prefix: 'bench', endpointUrl: infra.s3Endpoint, region: 'us-east-1' },
        {
          signal: new AbortController().signal,
          maxFileBytes: options.maxFileBytes,
          onFile: async () => {},
        },
      ),
    );
    const files = results.flatMap((r) => r.files);
    return {
      rows: results.reduce((a, r) => a + r.rows, 0),
      files: files.length,
      parquetBytes: files.reduce((a, f) => a + f.bytes, 0),
    };
  });
  // The kernel's high-water mark: this process did nothing but the export.
  figures.peakRssMb = Math.max(figures.peakRssMb, process.resourceUsage().maxRSS / 1024);
  process.stdout.write(JSON.stringify(figures) + '\n');
  s3.destroy();
  blobs.close();
  await ch.close();
}

if (process.argv[2] === '--export')
  await exportChild(process.argv[3]!, process.argv[4]!, process.argv[5] as ExportCompression);
else await main();

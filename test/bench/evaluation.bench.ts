// Evaluation benchmark (`npm run bench:evaluation`): datasets' examples and `evaluate()`.
//
// It starts a stack of its own (API + projectors, own topic prefix and ClickHouse database) and:
//   1. writes a dataset of BENCH_EXAMPLES examples (default 100,000) in BENCH_VERSIONS writes
//      (default 100) through the multipart route the clients use (POST /v1/platform/datasets/{id}/
//      examples), a few writes at a time: every write is a version. Examples written/s runs from
//      the first request to the moment the projector has them all, with the API's and the
//      projector's CPU per example;
//   2. reads pages of 100 examples at a version (`GET /examples?dataset=&as_of=&offset=&limit=100`,
//      as `listExamples` does), at versions and offsets drawn at random: the p50 and p99, against
//      the raw baseline of the same run, a ClickHouse read of 100 rows of the same table at the same
//      offsets without versions (SELECT … LIMIT offset, 100 over HTTP);
//   3. runs the `langsmith` npm client's `evaluate()` with a no-op target and one evaluator over
//      a dataset of BENCH_EVAL_EXAMPLES examples (default 1,000), maxConcurrency 8, and the same
//      evaluate() with `uploadRuns: false` over the same examples in memory (the raw baseline: the
//      client's own cost): our overhead per example is the difference.
// Progress goes to stderr; stdout gets exactly one JSON line, also written to
// bench/results/evaluation.json (results.ts).
import { randomUUID } from 'node:crypto';
import { Client } from 'langsmith';
import { evaluate } from 'langsmith/evaluation';
import type { Example } from 'langsmith/schemas';
import { stackCall, startTracingStack } from '../support/tracingStack.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { CpuMeter, cpuMicrosPer, percentile, round } from './measure.ts';
import { startBenchRun } from './results.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const options = {
  examples: num('BENCH_EXAMPLES', 100_000),
  versions: num('BENCH_VERSIONS', 100),
  concurrency: num('BENCH_CONCURRENCY', 4),
  reads: num('BENCH_READS', 200),
  evalExamples: num('BENCH_EVAL_EXAMPLES', 1000),
  evalConcurrency: num('BENCH_EVAL_CONCURRENCY', 8),
};
const log = (msg: string) => process.stderr.write(`[bench:evaluation] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One write of examples as the clients send it: per example its JSON part and its inputs and outputs. */
function multipartWrite(first: number, count: number): FormData {
  const form = new FormData();
  for (let i = first; i < first + count; i++) {
    const id = randomUUID();
    const json = (value: unknown) => new Blob([JSON.stringify(value)], { type: 'application/json' });
    form.append(id, json({ metadata: { n: i, group: i % 10 }, split: i % 5 === 0 ? 'test' : 'train' }));
    form.append(`${id}.inputs`, json({ question: `What is ${i} + ${i}?`, context: 'x'.repeat(200) }));
    form.append(`${id}.outputs`, json({ answer: String(i + i) }));
  }
  return form;
}

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  const stack = await startTracingStack('bench_eval', { LOG_LEVEL: 'warn' });
  const ch = ClickHouseClient.fromConfig(stack.config);
  try {
    const dataset = (await stackCall(stack, 'POST', '/datasets', { name: `bench-${randomUUID().slice(0, 8)}` })).body;
    const perWrite = Math.ceil(options.examples / options.versions);

    // 1. writes
    log(`writing ${options.examples} examples in ${options.versions} writes`);
    const meter = new CpuMeter({ api: stack.api.pid, projector: stack.projector.pid });
    meter.start();
    const started = performance.now();
    let next = 0;
    const versions: string[] = [];
    const writer = async () => {
      for (;;) {
        const write = next++;
        if (write >= options.versions) return;
        const res = await fetch(`${stack.url}/v1/platform/datasets/${dataset.id}/examples`, {
          method: 'POST',
          headers: { 'x-api-key': stack.apiKey },
          body: multipartWrite(write * perWrite, perWrite),
        });
        const body = (await res.json()) as { as_of: string };
        if (res.status !== 200) throw new Error(`write ${write}: ${res.status} ${JSON.stringify(body)}`);
        versions.push(body.as_of);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, writer));
    const acknowledged = performance.now();
    const total = perWrite * options.versions;
    for (;;) {
      const [row] = await ch.query<{ n: string }>(
        sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.examples)} WHERE dataset_id = ${dataset.id}`,
      );
      if (Number(row?.n) >= total) break;
      await sleep(50);
    }
    const projected = performance.now();
    const writeCpu = meter.stop();
    const writeSeconds = (projected - started) / 1000;
    log(`${total} examples projected in ${writeSeconds.toFixed(1)} s`);

    // 2. reads at versions
    versions.sort();
    const tenant = (
      await ch.query<{ t: string }>(sql`SELECT toString(tenant_id) AS t FROM ${ident(LIVE_TABLES.examples)} LIMIT 1`)
    )[0]!.t;
    const api: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < options.reads + 10; i++) {
      const versionIndex = Math.floor(Math.random() * versions.length);
      const asOf = versions[versionIndex]!;
      const held = (versionIndex + 1) * perWrite;
      const offset = Math.floor(Math.random() * Math.max(1, held - 100));
      let t0 = performance.now();
      const res = await fetch(
        `${stack.url}/examples?dataset=${dataset.id}&as_of=${encodeURIComponent(asOf)}&offset=${offset}&limit=100`,
        { headers: { 'x-api-key': stack.apiKey } },
      );
      const page = (await res.json()) as unknown[];
      if (res.status !== 200 || page.length !== 100) throw new Error(`read: ${res.status} ${page.length} rows`);
      const apiMs = performance.now() - t0;
      t0 = performance.now();
      const rows = await ch.query(
        sql`SELECT * FROM ${ident(LIVE_TABLES.examples)} WHERE tenant_id = ${tenant} AND dataset_id = ${dataset.id} LIMIT ${offset}, 100`,
      );
      if (rows.length !== 100) throw new Error(`raw read: ${rows.length} rows`);
      const rawMs = performance.now() - t0;
      if (i >= 10) {
        api.push(apiMs);
        raw.push(rawMs);
      }
    }
    const p50 = percentile(api, 50)!;
    const rawP50 = percentile(raw, 50)!;
    log(`reads at a version: p50 ${p50.toFixed(1)} ms (raw ${rawP50.toFixed(1)} ms)`);

    // 3. evaluate()
    const client = new Client({ apiUrl: stack.url, apiKey: stack.apiKey });
    const evalDataset = await client.createDataset(`bench-eval-${randomUUID().slice(0, 8)}`);
    await client.createExamples({
      datasetId: evalDataset.id,
      inputs: Array.from({ length: options.evalExamples }, (_, i) => ({ n: i })),
      outputs: Array.from({ length: options.evalExamples }, (_, i) => ({ n: i })),
    });
    const examples: Example[] = [];
    for await (const e of client.listExamples({ datasetId: evalDataset.id })) examples.push(e);
    const target = async (inputs: Record<string, unknown>) => ({ n: inputs.n });
    const same = ({
      outputs,
      referenceOutputs,
    }: {
      outputs?: Record<string, unknown>;
      referenceOutputs?: Record<string, unknown>;
    }) => ({
      key: 'same',
      score: outputs?.n === referenceOutputs?.n,
    });
    const timed = async (uploadRuns: boolean) => {
      const t0 = performance.now();
      const results = await evaluate(target, {
        data: uploadRuns ? evalDataset.name : examples,
        evaluators: [same],
        maxConcurrency: options.evalConcurrency,
        uploadRuns,
        client,
      });
      await client.awaitPendingTraceBatches();
      if (results.results.length !== options.evalExamples) throw new Error(`evaluate: ${results.results.length} rows`);
      return (performance.now() - t0) / options.evalExamples;
    };
    const localMs = await timed(false);
    const evalMeter = new CpuMeter({ api: stack.api.pid, projector: stack.projector.pid });
    evalMeter.start();
    const fullMs = await timed(true);
    const evalCpu = evalMeter.stop();
    log(`evaluate(): ${fullMs.toFixed(2)} ms an example (local only ${localMs.toFixed(2)} ms)`);

    benchRun.finish({
      bench: 'evaluation',
      examples: total,
      versions: options.versions,
      examples_written_per_s: Math.round(total / writeSeconds),
      examples_acknowledged_per_s: Math.round(total / ((acknowledged - started) / 1000)),
      write_cpu_us_per_example: cpuMicrosPer(total, writeCpu),
      list_at_version_p50_ms: round(p50, 1),
      list_at_version_p99_ms: round(percentile(api, 99), 1),
      raw_read_p50_ms: round(rawP50, 1),
      list_at_version_vs_raw_read: round(p50 / rawP50, 2),
      evaluate_examples: options.evalExamples,
      evaluate_ms_per_example: round(fullMs, 2),
      evaluate_local_ms_per_example: round(localMs, 2),
      evaluate_overhead_ms_per_example: round(fullMs - localMs, 2),
      evaluate_server_cpu_us_per_example: cpuMicrosPer(options.evalExamples, evalCpu),
      options,
    });
  } finally {
    await ch.close();
    await stack.stop();
  }
}

await main();
process.exit(0);

// The API's ingest path in one process, without HTTP or Kafka: multipart bodies of the ingest
// benchmark's traffic read (readMultipartBatch), validated and turned into events, each event
// Avro-encoded as EventLog does (RunIngestor with a log that only encodes). Reports CPU time
// (user + system) per run, robust to a machine busy with other work, where wall-clock figures
// are not. `--root <dir>` runs another checkout's code on the same traffic, for a before/after:
//   git archive <commit> services platform schemas projections test | tar -x -C /tmp/before
//   ln -s "$PWD/node_modules" /tmp/before/node_modules
//   node test/bench/ingestPath.bench.ts --root /tmp/before; node test/bench/ingestPath.bench.ts
// One JSON line on stdout. Knobs: BENCH_RUNS=40000 (runs per round), BENCH_ROUNDS=6 (the first two warm up).
import { Readable } from 'node:stream';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../support/serviceProcess.ts';

const { values } = parseArgs({ options: { root: { type: 'string' } } });
const root = resolve(values.root ?? repoRoot);
const runsPerRound = Number(process.env.BENCH_RUNS ?? 40_000);
const rounds = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 6));

const { TrafficGenerator } = (await import(
  `${root}/test/bench/traceGenerator.ts`
)) as typeof import('./traceGenerator.ts');
const { readMultipartBatch } = (await import(
  `${root}/services/tracing/ingest/multipartBatch.ts`
)) as typeof import('../../services/tracing/ingest/multipartBatch.ts');
const { RunIngestor } = (await import(
  `${root}/services/tracing/ingest/runIngestor.ts`
)) as typeof import('../../services/tracing/ingest/runIngestor.ts');
const { encodeEvent } = (await import(`${root}/schemas/registry.ts`)) as typeof import('../../schemas/registry.ts');
type Ingestor = ConstructorParameters<typeof RunIngestor>;

const tenantId = 'a3c1c2b4-5c6e-4f0a-9d51-1f6c0b8e2d77';
const batches = new TrafficGenerator({
  tenantId,
  sessionName: 'bench-path',
  interleave: 8,
  batchOps: 100,
  minRuns: 10,
  maxRuns: 30,
  seed: 7,
}).batches(runsPerRound);
const runs = batches.reduce((n, b) => n + b.postedRunIds.length, 0);
const encodeOnlyLog = {
  maxEventBytes: async () => 1_000_000,
  append: async (events: Array<{ name: string; payload: unknown }>) => {
    for (const e of events) encodeEvent(e.name as never, e.payload as never);
  },
} as unknown as Ingestor[1];
const projects = {
  resolve: async (_tenant: string, id: string | null) => id ?? '00000000-0000-0000-0000-000000000001',
} as unknown as Ingestor[3];
// The lineage index knows none of these runs (they are all posted through multipart, which the ingestor remembers itself).
const lineage = { recall: () => undefined } as unknown as Ingestor[4];
const ingestor = new RunIngestor(
  { PAYLOAD_OFFLOAD_BYTES: 1 << 20 },
  encodeOnlyLog,
  {} as Ingestor[2],
  projects,
  lineage,
);
// As a socket delivers it: 64 KiB chunks.
const chunked = (body: Buffer) =>
  Readable.from(
    Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536)),
  );

const perRun: number[] = [];
for (let round = 0; round < rounds; round++) {
  const start = process.cpuUsage();
  for (const b of batches) {
    const headers = { 'content-type': b.contentType, 'content-length': String(b.body.length) };
    const batch = await readMultipartBatch(chunked(b.body), headers, 50 << 20);
    await ingestor.ingest(tenantId, batch.runs, batch.feedback, 'multipart');
  }
  const used = process.cpuUsage(start);
  perRun.push((used.user + used.system) / runs);
}
const measured = perRun.slice(2).sort((a, b) => a - b);
const median = measured[Math.floor((measured.length - 1) / 2)]!;
process.stdout.write(
  JSON.stringify({
    bench: 'ingest-path',
    root,
    runs_per_round: runs,
    cpu_us_per_run: Number(median.toFixed(1)),
    rounds_us_per_run: perRun.map((r) => Number(r.toFixed(1))),
  }) + '\n',
);

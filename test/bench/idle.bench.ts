// Idle benchmark (`npm run bench:idle`): what a tracing stack that does nothing costs. Every
// process of it keeps fetching from Kafka (folded topics, projector groups), and the broker pays
// for each fetch as well; on a machine running many stacks (a test suite, several workspaces'
// deployments, replicas), that is CPU taken from the work.
//
// Measured: the broker alone for BENCH_SECONDS (the raw baseline), then one stack (API, projector,
// export worker, as test/support/tracingStack.ts starts them) after BENCH_SETTLE_SECONDS, for
// BENCH_SECONDS: CPU per process as % of a core, and the broker's increase over its baseline.
// Runs on the local infrastructure (`npm run infra:up`). stdout gets exactly one JSON line,
// also written to bench/results/idle.json (results.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTracingStack } from '../support/tracingStack.ts';
import { repoRoot } from '../support/serviceProcess.ts';
import { cpuSeconds, round } from './measure.ts';
import { startBenchRun } from './results.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const settle = Number(process.env.BENCH_SETTLE_SECONDS ?? 15);
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const pidOf = (name: string) => Number(readFileSync(join(repoRoot, '.local', 'run', `${name}.pid`), 'utf8'));

/** % of a core each process used over `s` seconds. */
async function usage(pids: Record<string, number>, s: number): Promise<Record<string, number | null>> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const t0 = performance.now();
  await sleep(s);
  const elapsed = (performance.now() - t0) / 1000;
  return Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, round((((cpuSeconds(pid) ?? 0) - (before[k] ?? 0)) / elapsed) * 100)]),
  );
}

const benchRun = startBenchRun();
const broker = { kafka: pidOf('kafka'), clickhouse: pidOf('clickhouse') };
console.error(`[bench:idle] the broker alone for ${seconds} s`);
const baseline = await usage(broker, seconds);
const stack = await startTracingStack('bench_idle');
stack.startExportWorker();
console.error(`[bench:idle] one idle stack: ${settle} s to settle, then ${seconds} s`);
await sleep(settle);
const idle = await usage(
  {
    api: stack.api.child.pid!,
    projector: stack.projector.child.pid!,
    export_worker: stack.exportWorker!.child.pid!,
    ...broker,
  },
  seconds,
);
await stack.stop();
const own = (idle.api ?? 0) + (idle.projector ?? 0) + (idle.export_worker ?? 0);
const brokerExtra = (idle.kafka ?? 0) - (baseline.kafka ?? 0);
benchRun.finish({
  bench: 'idle',
  unit: '% of a core',
  seconds,
  baseline_broker_alone: baseline,
  idle_stack: idle,
  stack_processes_total: round(own),
  broker_added_by_stack: round(brokerExtra),
});
process.exit(0);

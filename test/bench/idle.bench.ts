// Idle benchmark (`npm run bench:idle`): what the whole default stack (`npm start`: tracing API,
// control plane, projectors, export worker, agent server, the example A2A agent, the chat app)
// costs when nothing happens. Every process of it keeps fetching from Kafka (folded topics,
// projector groups), polling PostgreSQL (run queue, crons, sweepers) or ticking timers, and the
// servers pay for each fetch and poll as well; on a machine running many stacks (a test suite,
// several workspaces' deployments, replicas), that is CPU taken from the work.
//
// Measured: the infrastructure alone for BENCH_SECONDS (the raw baseline: Kafka, ClickHouse,
// PostgreSQL, MinIO with no stack), then services/main.ts as `npm start` runs it (free ports, a
// topic prefix and ClickHouse database of its own), after BENCH_SETTLE_SECONDS, for BENCH_SECONDS:
// CPU per process as % of one core, and what the servers spent over their baseline.
// `idle_cpu_pct` is the stack's processes plus that increase. Runs on the local infrastructure
// (`npm run infra:up`). stdout gets exactly one JSON line, also written to bench/results/idle.json
// (results.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { childPids, freePort, repoRoot, waitFor } from '../support/serviceProcess.ts';
import { dropStackData } from '../support/tracingStack.ts';
import { endpointsFromEnv } from '../../infra/config.ts';
import { cpuSeconds, round } from './measure.ts';
import { pidOfInfra } from './load.ts';
import { startBenchRun } from './results.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const settle = Number(process.env.BENCH_SETTLE_SECONDS ?? 30);
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const log = (msg: string) => process.stderr.write(`[bench:idle] ${msg}\n`);

/** % of a core each process used over `s` seconds. */
async function usage(pids: Record<string, number>, s: number): Promise<Record<string, number | null>> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const t0 = performance.now();
  await sleep(s);
  const elapsed = (performance.now() - t0) / 1000;
  return Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => {
      const a = before[k];
      const b = cpuSeconds(pid);
      return [k, a == null || b === null ? null : round(((b - a) / elapsed) * 100)];
    }),
  );
}

/** The stack's processes by name: `main`, and each child by its entry file (tracingApiMain -> tracing_api). */
function stackPids(mainPid: number): Record<string, number> {
  const pids: Record<string, number> = { main: mainPid };
  const walk = (pid: number) => {
    for (const child of childPids(pid)) {
      let name = `pid_${child}`;
      try {
        const entry = readFileSync(`/proc/${child}/cmdline`, 'utf8')
          .split('\0')
          .find((a) => a.endsWith('.ts'));
        // services/processes/tracingApiMain.ts -> tracing_api; examples/chat-app/main.ts -> chat_app
        const [dir, file] = entry?.split('/').slice(-2) ?? [];
        if (file)
          name = (file === 'main.ts' ? dir! : file.replace(/(Main)?\.ts$/, ''))
            .replace(/([a-z])([A-Z])/g, '$1_$2')
            .replace(/-/g, '_')
            .toLowerCase();
      } catch {}
      while (pids[name] !== undefined) name += '_';
      pids[name] = child;
      walk(child);
    }
  };
  walk(mainPid);
  return pids;
}

const benchRun = startBenchRun();
const servers: Record<string, number> = {};
for (const name of ['kafka', 'clickhouse', 'postgres', 'minio']) {
  const pid = pidOfInfra(name);
  if (pid) servers[name] = pid;
}
log(`the infrastructure alone for ${seconds} s`);
const baseline = await usage(servers, seconds);

const id = `idle_${randomBytes(3).toString('hex')}`;
const ports = {
  TRACING_PORT: String(await freePort()),
  CONTROL_PLANE_PORT: String(await freePort()),
  AGENT_SERVER_PORT: String(await freePort()),
  A2A_EXAMPLE_AGENT_PORT: String(await freePort()),
  CHAT_APP_PORT: String(await freePort()),
};
const { BOOTSTRAP_API_KEY: _ignored, ...userEnv } = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('LANGSMITH_')),
) as Record<string, string>;
const main = spawn(process.execPath, [join(repoRoot, 'services/main.ts')], {
  env: { ...userEnv, ...ports, KAFKA_TOPIC_PREFIX: `${id}.`, CLICKHOUSE_DATABASE: id, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
main.stdout.on('data', (d: Buffer) => (output += d.toString()));
main.stderr.on('data', (d: Buffer) => (output += d.toString()));
const exited = new Promise<void>((resolve) => main.once('exit', () => resolve()));
let result: ({ bench: string } & Record<string, unknown>) | null = null;
try {
  const ready =
    (port: string, path = '/ok') =>
    async () =>
      (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => null))?.ok === true;
  await waitFor('the tracing API', ready(ports.TRACING_PORT, '/ready'), 180_000, 500);
  await waitFor('the control plane', ready(ports.CONTROL_PLANE_PORT, '/ready'), 180_000, 500);
  await waitFor('the agent server', ready(ports.AGENT_SERVER_PORT), 180_000, 500);
  await waitFor('the chat app', ready(ports.CHAT_APP_PORT), 180_000, 500);
  log(`the default stack is up: ${settle} s to settle, then ${seconds} s`);
  await sleep(settle);
  const processes = stackPids(main.pid!);
  const idle = await usage({ ...processes, ...servers }, seconds);
  const own = Object.keys(processes).reduce((sum, name) => sum + (idle[name] ?? 0), 0);
  const added = Object.fromEntries(
    Object.keys(servers).map((name) => [name, round((idle[name] ?? 0) - (baseline[name] ?? 0))]),
  );
  const serversAdded = Object.values(added).reduce((sum: number, v) => sum + Math.max(0, v ?? 0), 0);
  result = {
    bench: 'idle',
    idle_cpu_pct: round(own + serversAdded),
    unit: '% of a core',
    seconds,
    settle_seconds: settle,
    baseline_servers_alone: baseline,
    idle_stack: Object.fromEntries(Object.keys(processes).map((name) => [name, idle[name]])),
    idle_servers: Object.fromEntries(Object.keys(servers).map((name) => [name, idle[name]])),
    stack_processes_total: round(own),
    servers_added_by_stack: added,
  };
} catch (err) {
  log(`failed: ${(err as Error).message}\n${output.slice(-4000)}`);
  process.exitCode = 1;
} finally {
  main.kill('SIGTERM');
  await Promise.race([exited, sleep(30)]);
  if (main.exitCode === null && main.signalCode === null) main.kill('SIGKILL');
  const endpoints = endpointsFromEnv(process.env);
  await dropStackData(id, { CLICKHOUSE_URL: endpoints.clickhouseUrl, KAFKA_BROKERS: endpoints.kafkaBrokers }).catch(
    (err: Error) => log(`dropping ${id} failed: ${err.message}`),
  );
}
if (result) benchRun.finish(result);
process.exit(process.exitCode ?? 0);

// Agent-server replicas benchmark (`npm run bench:agent-replicas`): three agent servers sharing
// one PostgreSQL database (the run queue in runs/postgresRunQueue.ts) against one, in the same
// run, on the same database, with the same load generator. The baseline is the one server.
//
// Each server: AGENT_SERVER_CHECKPOINTER=postgres, the example no-op graph, no authentication
// (no Kafka needed), tracing off, logging at warn. BENCH_CONCURRENCY keep-alive clients, each
// sending its next request as soon as the previous one is answered; with three servers client i
// talks to server i mod 3 (a load balancer's round robin). Phases, per topology:
//   runs_wait         POST /runs/wait (stateless): admitted and executed where it arrives
//   thread_runs_wait  POST /threads/{id}/runs/wait, each client on a thread of its own (a new one
//                     every BENCH_TURNS runs)
//   queued_wait       POST /threads/{id}/runs/wait with multitask_strategy "enqueue" on
//                     BENCH_SHARED_THREADS threads shared by all clients (new ones every
//                     BENCH_TURNS runs each): most runs wait in the queue and are claimed by
//                     whichever server is free (the hand-over path)
//
// The ratio asked of this (≥ 2.5× with three servers) needs the cores to run them: on a 2-core
// machine three servers and PostgreSQL share two cores, so the JSON line reports the ratio with the
// cores each process used, and with BENCH_PROFILE=1 where one server's CPU went.
//
// Progress goes to stderr; stdout gets exactly one JSON line, also
// written to bench/results/agent-replicas.json (results.ts). Knobs: BENCH_CONCURRENCY=24
// BENCH_SECONDS=10 BENCH_WARMUP_SECONDS=2 BENCH_TURNS=10 BENCH_SHARED_THREADS=6 BENCH_REPLICAS=3
// BENCH_PROFILE=1.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startAgentServer, writeAgentConfig, exampleGraph, type AgentServer } from '../support/agentServer.ts';
import { repoRoot } from '../support/serviceProcess.ts';
import { asAdmin } from '../support/scratchPostgres.ts';
import { summariseCpuProfile, type ProfileSummary } from './cpuProfile.ts';
import { measurePhase, type Phase, type Send } from './closedLoop.ts';
import { pidOfInfra } from './load.ts';
import { monotonicUs, round } from './measure.ts';
import { startBenchRun } from './results.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const options = {
  concurrency: num('BENCH_CONCURRENCY', 24),
  seconds: num('BENCH_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  turns: num('BENCH_TURNS', 10),
  sharedThreads: num('BENCH_SHARED_THREADS', 6),
  replicas: num('BENCH_REPLICAS', 3),
  profile: env.BENCH_PROFILE === '1',
};
const target = { ratio: 2.5 };
const GRAPH_ID = 'noop';
const log = (msg: string) => process.stderr.write(`[bench:agent-replicas] ${msg}\n`);
for (const [name, value] of Object.entries(options))
  if (typeof value === 'number' && !(Number.isInteger(value) && value > 0))
    throw new Error(`${name} must be a positive integer (got ${value})`);

const POSTGRES_URL = env.POSTGRES_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

// ---- requests ----

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const input = { messages: [{ role: 'user', content: 'hello' }] };
const statelessBody = JSON.stringify({ assistant_id: GRAPH_ID, input });
const threadBody = JSON.stringify({ assistant_id: GRAPH_ID, input, if_not_exists: 'create' });
const enqueueBody = JSON.stringify({
  assistant_id: GRAPH_ID,
  input,
  if_not_exists: 'create',
  multitask_strategy: 'enqueue',
});
const hasMessages = (text: string) => text.includes('"messages"') && text.includes('hello');

let failuresLogged = 0;
async function post(pool: Pool, path: string, body: string): Promise<string | null> {
  const res = await pool.request({ path, method: 'POST', headers: JSON_HEADERS, body });
  const text = await res.body.text();
  if (res.statusCode === 200 && hasMessages(text)) return null;
  if (failuresLogged++ < 5) log(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return String(res.statusCode);
}

/** Client i's server: round robin. */
const poolOf = (pools: Pool[], client: number) => pools[client % pools.length]!;

const runsWait =
  (pools: Pool[]): Send =>
  (client) =>
    post(poolOf(pools, client), '/runs/wait', statelessBody);

function threadRunsWait(pools: Pool[]): Send {
  const clients: { threadId: string; turn: number }[] = [];
  return (client) => {
    const state = (clients[client] ??= { threadId: randomUUID(), turn: 0 });
    if (state.turn++ >= options.turns) Object.assign(state, { threadId: randomUUID(), turn: 1 });
    return post(poolOf(pools, client), `/threads/${state.threadId}/runs/wait`, threadBody);
  };
}

/** Clients share a few threads, new ones every BENCH_TURNS runs each (a thread's state grows with its runs). */
function queuedWait(pools: Pool[]): Send {
  const fresh = () => Array.from({ length: options.sharedThreads }, () => randomUUID());
  let threads = fresh();
  let sent = 0;
  return (client) => {
    if (sent++ >= options.turns * options.sharedThreads) [threads, sent] = [fresh(), 1];
    return post(poolOf(pools, client), `/threads/${threads[client % threads.length]}/runs/wait`, enqueueBody);
  };
}

// ---- one topology ----

interface Topology {
  runs_wait: Phase;
  thread_runs_wait: Phase;
  queued_wait: Phase;
  profile?: Record<string, ProfileSummary>;
}

async function benchTopology(replicas: number, database: string): Promise<Topology> {
  const configFile = writeAgentConfig({ graphs: { [GRAPH_ID]: exampleGraph('noopGraph') } });
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  const profileDir = join(repoRoot, '.local', 'bench', 'prof', `agent-replicas-${replicas}-${Date.now()}`);
  const servers: AgentServer[] = [];
  const pools: Pool[] = [];
  const windows: Record<string, { fromUs: number; toUs: number }> = {};
  try {
    for (let i = 0; i < replicas; i++) {
      // one server profiled: what a replica spends its CPU on
      const profiled = options.profile && i === 0;
      servers.push(
        await startAgentServer(`bench-replica-${i}`, {
          configFile,
          env: {
            LANGSMITH_TRACING: 'false',
            LOG_LEVEL: 'warn',
            AGENT_SERVER_AUTH: 'none',
            AGENT_SERVER_CHECKPOINTER: 'postgres',
            POSTGRES_URL: url.toString(),
            ...(profiled ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
          },
        }),
      );
    }
    for (const server of servers)
      pools.push(new Pool(server.url, { connections: Math.ceil(options.concurrency / replicas) }));
    const postgres = pidOfInfra('postgres');
    const pids: Record<string, number> = {
      ...Object.fromEntries(servers.map((s, i) => [`agent_server_${i}`, s.process.pid])),
      ...(postgres ? { postgres } : {}),
      bench: process.pid,
    };
    const settings = { seconds: options.seconds, warmupSeconds: options.warmupSeconds, log, trees: ['postgres'] };
    const phase = async (name: string, send: Send) => {
      const fromUs = monotonicUs();
      const result = await measurePhase(`${replicas} × ${name}`, options.concurrency, send, pids, settings);
      windows[name] = { fromUs, toUs: monotonicUs() };
      return result;
    };
    const result: Topology = {
      runs_wait: await phase('runs_wait', runsWait(pools)),
      thread_runs_wait: await phase('thread_runs_wait', threadRunsWait(pools)),
      queued_wait: await phase('queued_wait', queuedWait(pools)),
    };
    await Promise.all(pools.map((p) => p.close()));
    await Promise.all(servers.map((s) => s.stop())); // the profile is written as the process exits
    if (options.profile) {
      const file = existsSync(profileDir) ? readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile')) : undefined;
      if (file)
        result.profile = Object.fromEntries(
          Object.entries(windows).map(([name, w]) => [name, summariseCpuProfile(join(profileDir, file), w, 8)]),
        );
    }
    return result;
  } finally {
    await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    rmSync(join(configFile, '..'), { recursive: true, force: true });
  }
}

/** Cores of the agent servers together, of PostgreSQL and of the load generator, in a phase. */
function coresBy(phase: Phase): Record<string, number | null> {
  const servers = Object.entries(phase.cores).filter(([name]) => name.startsWith('agent_server_'));
  const sum = servers.reduce<number | null>((a, [, c]) => (a === null || c === null ? null : a + c), 0);
  return {
    agent_servers: round(sum, 2),
    postgres: phase.cores.postgres ?? null,
    bench: phase.cores.bench ?? null,
    other: phase.cores.other ?? null,
  };
}

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  const database = `bench_replicas_${randomBytes(4).toString('hex')}`;
  await asAdmin(POSTGRES_URL, `CREATE DATABASE ${database}`);
  log(
    `database ${database} on ${new URL(POSTGRES_URL).host}; ${options.concurrency} clients, ${options.seconds} s per phase`,
  );
  try {
    const one = await benchTopology(1, database);
    const many = await benchTopology(options.replicas, database);
    const ratio = (name: 'runs_wait' | 'thread_runs_wait' | 'queued_wait') =>
      one[name].rps && many[name].rps !== null ? round(many[name].rps! / one[name].rps!, 2) : null;
    const result = {
      bench: 'agent-replicas',
      replicas: options.replicas,
      /** runs/s with the replicas over runs/s with one server, per phase. */
      ratio: {
        runs_wait: ratio('runs_wait'),
        thread_runs_wait: ratio('thread_runs_wait'),
        queued_wait: ratio('queued_wait'),
      },
      rps: {
        one: {
          runs_wait: one.runs_wait.rps,
          thread_runs_wait: one.thread_runs_wait.rps,
          queued_wait: one.queued_wait.rps,
        },
        many: {
          runs_wait: many.runs_wait.rps,
          thread_runs_wait: many.thread_runs_wait.rps,
          queued_wait: many.queued_wait.rps,
        },
      },
      /** Where the machine's cores went in the stateless phase. */
      cores: { one: coresBy(one.runs_wait), many: coresBy(many.runs_wait) },
      target,
      details: {
        one: { ...one },
        many: { ...many },
        workload: { ...options, graph: 'examples/agent-server/noopGraph.ts', persistence: 'postgres' },
      },
    };
    benchRun.finish(result);
  } finally {
    await asAdmin(POSTGRES_URL, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((err) =>
      log(`could not drop ${database}: ${(err as Error).message}`),
    );
  }
}

await main();

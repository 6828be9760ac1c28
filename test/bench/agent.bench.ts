// Agent-server benchmark (`npm run bench:agent`): what our server costs per run, against
// `@langchain/langgraph-api` (the LangGraph JS server) serving the same graph, measured in the
// same run on the same machine with the same load generator.
//
// Both servers run as child processes with the example no-op graph (services/agent-server/
// examples/noopGraph.ts: one node that changes nothing, messages state), in-memory persistence,
// tracing off and logging at warn. Ours runs with AGENT_SERVER_AUTH=none, as langgraph-api runs
// without authentication (and the benchmark then needs no Kafka for API keys). The load
// generator (undici, keep-alive, one connection per client) runs BENCH_CONCURRENCY clients, each
// sending its next request as soon as its previous one is answered, for BENCH_SECONDS after
// BENCH_WARMUP_SECONDS of the same. Phases, one server up at a time:
//   runs_wait             POST /runs/wait (stateless), one user message
//   runs_wait_sequential  the same with one client: latency without queueing
//   thread_runs_wait      POST /threads/{id}/runs/wait, one user message, each client on its own
//                         thread (created by the first run), a new one every BENCH_TURNS runs
//   a2a_send              POST /a2a/noop, JSON-RPC message/send, a new conversation each time
//   store_put             PUT /store/items, each client in a namespace of its own, over 1,000 keys
//   store_get             GET /store/items of keys the put phase wrote (ours only, as a2a_send)
//   cron_dispatch         BENCH_CRONS thread crons (`* * * * *`), all due at the next minute: from
//                         that minute to the last of their runs done, and our server's CPU per
//                         dispatched run (the tick, the claim, the run); ours only (the JS LangGraph
//                         server has no crons). Waits up to a minute for the minute to turn.
//                         (ours only: the JS LangGraph server has no A2A endpoint)
// and, in this process, graph.invoke of the same graph with a MemorySaver (a new thread each
// time), concurrently and sequentially: the floor a server adds its cost to.
//
// langgraph-api cannot live in the project's node_modules (its peer dependencies want older
// @langchain/langgraph-checkpoint and TypeScript 5), so it is installed on first use into
// .local/bench/langgraph-api/ beside the same @langchain/langgraph and @langchain/core versions
// as ours, with a copy of the graph's source; later runs reuse it. It is started through its
// startServer() (what its CLI's `dev` runs, without the file watcher), in a scratch directory.
//
// Progress goes to stderr; stdout gets exactly one JSON line (`npm run -s bench:agent | tail -1`),
// also written to bench/results/agent.json (results.ts).
//
// Knobs: BENCH_CONCURRENCY=16  BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_TURNS=10
// BENCH_CRONS=200 (0 skips the cron phase and its wait for the minute)
// BENCH_SKIP_BASELINE=1  BENCH_LANGGRAPH_API_WORKERS (its queue workers; default = concurrency)
// BENCH_PROFILE=1 (run our server under --cpu-prof and add its hotspots during our concurrent
// phases to the JSON line; the profiler slows it a little, so figures of such a run are marked).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { startAgentServer, writeAgentConfig, exampleGraph } from '../support/agentServer.ts';
import { freePort, repoRoot, waitFor } from '../support/serviceProcess.ts';
import { summariseCpuProfile, type ProfileSummary } from './cpuProfile.ts';
import { CpuMeter, cpuMicrosPer, monotonicUs, round } from './measure.ts';
import { startBenchRun } from './results.ts';
import { measurePhase, type Phase, type Send } from './closedLoop.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const options = {
  concurrency: num('BENCH_CONCURRENCY', 16),
  seconds: num('BENCH_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  turns: num('BENCH_TURNS', 10),
  skipBaseline: env.BENCH_SKIP_BASELINE === '1',
  baselineWorkers: num('BENCH_LANGGRAPH_API_WORKERS', num('BENCH_CONCURRENCY', 16)),
  profile: env.BENCH_PROFILE === '1',
};
const targets = { ratio_rps: 2, added_p50_ms: 5 };

const LANGGRAPH_API_VERSION = '2.0.0';
const LANGGRAPH_API_DIR = join(repoRoot, '.local', 'bench', 'langgraph-api');
const GRAPH_SOURCE = join(repoRoot, 'examples/agent-server/noopGraph.ts');
const GRAPH_ID = 'noop';
/** Both servers run like this: no tracing, no per-request logs. */
const SERVER_ENV = { LANGSMITH_TRACING: 'false', LOG_LEVEL: 'warn' };

const log = (msg: string) => process.stderr.write(`[bench:agent] ${msg}\n`);

for (const [name, value] of Object.entries({
  BENCH_CONCURRENCY: options.concurrency,
  BENCH_SECONDS: options.seconds,
  BENCH_TURNS: options.turns,
  BENCH_LANGGRAPH_API_WORKERS: options.baselineWorkers,
}))
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`${name} must be a positive integer (got ${value})`);

// ---- load ----

/** Warms up, then measures one phase of closed-loop load (closedLoop.ts) at this benchmark's settings. */
const measure = (name: string, concurrency: number, send: Send, pids: Record<string, number>): Promise<Phase> =>
  measurePhase(name, concurrency, send, pids, { seconds: options.seconds, warmupSeconds: options.warmupSeconds, log });

// ---- requests ----

const userMessage = { role: 'user', content: 'hello' };
const runBody = JSON.stringify({ assistant_id: GRAPH_ID, input: { messages: [userMessage] } });
const threadRunBody = JSON.stringify({
  assistant_id: GRAPH_ID,
  input: { messages: [userMessage] },
  if_not_exists: 'create',
});
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

let failuresLogged = 0;
/** POSTs a JSON body; a 2xx whose body passes `check` is a success, anything else a failure named by its status. */
async function post(pool: Pool, path: string, body: string, check: (text: string) => boolean): Promise<string | null> {
  const res = await pool.request({ path, method: 'POST', headers: JSON_HEADERS, body });
  const text = await res.body.text();
  if (res.statusCode >= 200 && res.statusCode < 300 && check(text)) return null;
  if (failuresLogged++ < 5) log(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return String(res.statusCode);
}

/** A final state that holds the user's message (the no-op graph returns its input). */
const hasMessages = (text: string) => text.includes('"messages"') && text.includes('hello');

const runsWait =
  (pool: Pool): Send =>
  () =>
    post(pool, '/runs/wait', runBody, hasMessages);

/** Each client on a thread of its own, a new one every `turns` runs. */
function threadRunsWait(pool: Pool): Send {
  const clients: { threadId: string; turn: number }[] = [];
  return (client) => {
    const state = (clients[client] ??= { threadId: randomUUID(), turn: 0 });
    if (state.turn++ >= options.turns) Object.assign(state, { threadId: randomUUID(), turn: 1 });
    return post(pool, `/threads/${state.threadId}/runs/wait`, threadRunBody, hasMessages);
  };
}

const a2aBody = () =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: randomUUID(),
    method: 'message/send',
    params: { message: { role: 'user', parts: [{ kind: 'text', text: 'hello' }], messageId: randomUUID() } },
  });
const a2aCompleted = (text: string) => text.includes('"completed"') && !text.includes('"error"');
const a2aSend =
  (pool: Pool): Send =>
  () =>
    post(pool, `/a2a/${GRAPH_ID}`, a2aBody(), a2aCompleted);

/** Store items: each client in its namespace, cycling over STORE_KEYS keys (puts replace, gets find). */
const STORE_KEYS = 1000;
function storeSend(pool: Pool, method: 'PUT' | 'GET'): Send {
  const sent: number[] = [];
  return async (client) => {
    const n = (sent[client] = (sent[client] ?? -1) + 1);
    const key = `k${n % (method === 'PUT' ? STORE_KEYS : 100)}`;
    const res =
      method === 'PUT'
        ? await pool.request({
            path: '/store/items',
            method,
            headers: JSON_HEADERS,
            body: JSON.stringify({ namespace: ['bench', `c${client}`], key, value: { text: 'hello', n } }),
          })
        : await pool.request({ path: `/store/items?namespace=bench.c${client}&key=${key}`, method });
    const text = await res.body.text();
    if (method === 'PUT' ? res.statusCode === 204 : res.statusCode === 200 && text.includes('"hello"')) return null;
    if (failuresLogged++ < 5) log(`${method} /store/items answered ${res.statusCode}: ${text.slice(0, 300)}`);
    return String(res.statusCode);
  };
}

interface CronDispatch {
  crons: number;
  /** From the minute they were all due to the last of their runs done. */
  seconds_to_last_run: number | null;
  runs_per_second: number | null;
  cpu_us_per_dispatch: Record<string, number | null>;
  failures?: string;
}

const CRONS = Number(env.BENCH_CRONS ?? 200);

/** BENCH_CRONS thread crons due at the same minute: how long until each has run once, and what that cost. */
async function cronDispatch(pool: Pool, serverPid: number): Promise<CronDispatch> {
  if (CRONS === 0) return { crons: 0, seconds_to_last_run: null, runs_per_second: null, cpu_us_per_dispatch: {} };
  const tag = randomUUID();
  const json = async (path: string, body: unknown) => {
    const res = await pool.request({ path, method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  for (let i = 0; i < CRONS; i++) {
    const thread = await json('/threads', { metadata: { bench_cron: tag } });
    await json(`/threads/${thread.thread_id}/runs/crons`, {
      assistant_id: GRAPH_ID,
      schedule: '* * * * *',
      input: { messages: [userMessage] },
    });
  }
  const dueAt = Math.ceil(Date.now() / 60_000) * 60_000;
  log(`ours cron_dispatch: ${CRONS} crons, due in ${Math.round((dueAt - Date.now()) / 1000)} s`);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now() - 200)));
  const meter = new CpuMeter({ agent_server: serverPid, bench: process.pid });
  meter.start();
  const ran = () =>
    json('/threads/count', {
      metadata: { bench_cron: tag },
      values: { messages: [{ content: 'hello' }] },
    }) as unknown as Promise<number>;
  let done = 0;
  while (Date.now() < dueAt + 50_000) {
    done = await ran();
    if (done >= CRONS) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const reading = meter.stop();
  const seconds = (Date.now() - dueAt) / 1000;
  log(`ours cron_dispatch: ${done} of ${CRONS} crons ran within ${seconds.toFixed(1)} s of their minute`);
  return {
    crons: CRONS,
    seconds_to_last_run: done >= CRONS ? round(seconds, 2) : null,
    runs_per_second: done >= CRONS ? round(CRONS / seconds) : null,
    cpu_us_per_dispatch: cpuMicrosPer(done, reading),
    ...(done < CRONS ? { failures: `${CRONS - done} crons had not run 50 s after their minute` } : {}),
  };
}

/** Why A2A cannot be measured on this server (null: it can), from one message/send. */
async function a2aUnavailable(pool: Pool): Promise<string | null> {
  const res = await pool.request({ path: `/a2a/${GRAPH_ID}`, method: 'POST', headers: JSON_HEADERS, body: a2aBody() });
  const text = await res.body.text();
  if (res.statusCode === 404 || res.statusCode === 405)
    return `POST /a2a/{assistant_id} is not served (HTTP ${res.statusCode})`;
  if (res.statusCode !== 200 || !a2aCompleted(text))
    return `message/send did not complete a task (HTTP ${res.statusCode}: ${text.slice(0, 200)})`;
  return null;
}

// ---- our server ----

interface OursResult {
  runs_wait: Phase;
  runs_wait_sequential: Phase;
  thread_runs_wait: Phase;
  a2a_send: Phase | { missing: string };
  store_put: Phase;
  store_get: Phase;
  cron_dispatch: CronDispatch;
  /** With BENCH_PROFILE=1: our server's hotspots per concurrent phase. */
  profile?: Record<string, ProfileSummary>;
}

interface Window {
  fromUs: number;
  toUs: number;
}

async function benchOurs(): Promise<OursResult> {
  const configFile = writeAgentConfig({ graphs: { [GRAPH_ID]: exampleGraph('noopGraph') } });
  const profileDir = join(repoRoot, '.local', 'bench', 'prof', `agent-server-${Date.now()}`);
  const server = await startAgentServer('bench', {
    configFile,
    env: {
      ...SERVER_ENV,
      AGENT_SERVER_AUTH: 'none',
      AGENT_SERVER_CHECKPOINTER: 'memory',
      ...(options.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
    },
  });
  log(`our agent server: ${server.url} (pid ${server.process.pid})`);
  const pool = new Pool(server.url, { connections: options.concurrency });
  const pids = { agent_server: server.process.pid, bench: process.pid };
  /** When each concurrent phase ran, for the profile. */
  const windows: Record<string, Window> = {};
  const concurrent = async (name: string, send: Send) => {
    const fromUs = monotonicUs();
    const phase = await measure(`ours ${name}`, options.concurrency, send, pids);
    windows[name] = { fromUs, toUs: monotonicUs() };
    return phase;
  };
  let result: OursResult;
  try {
    // Stateless runs first, on a server holding no threads yet (the later phases leave thousands).
    const runs_wait = await concurrent('runs_wait', runsWait(pool));
    const runs_wait_sequential = await measure('ours runs_wait_sequential', 1, runsWait(pool), pids);
    const thread_runs_wait = await concurrent('thread_runs_wait', threadRunsWait(pool));
    const missing = await a2aUnavailable(pool);
    if (missing) log(`ours a2a_send: missing: ${missing}`);
    const a2a_send = missing ? { missing } : await concurrent('a2a_send', a2aSend(pool));
    const store_put = await concurrent('store_put', storeSend(pool, 'PUT'));
    const store_get = await concurrent('store_get', storeSend(pool, 'GET'));
    const cron_dispatch = await cronDispatch(pool, server.process.pid);
    result = { runs_wait, runs_wait_sequential, thread_runs_wait, a2a_send, store_put, store_get, cron_dispatch };
  } finally {
    await pool.close();
    await server.stop(); // the profile is written as the process exits
    rmSync(join(configFile, '..'), { recursive: true, force: true });
  }
  if (options.profile) result.profile = ourProfile(profileDir, windows);
  return result;
}

/** Hotspots of the profile our server wrote on exit, per concurrent phase. */
function ourProfile(profileDir: string, windows: Record<string, Window>): Record<string, ProfileSummary> | undefined {
  const file = existsSync(profileDir) ? readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile')) : undefined;
  if (!file) {
    log(`no CPU profile in ${profileDir}`);
    return undefined;
  }
  log(`CPU profile: ${join(profileDir, file)}`);
  return Object.fromEntries(
    Object.entries(windows).map(([phase, window]) => [phase, summariseCpuProfile(join(profileDir, file), window, 8)]),
  );
}

// ---- langgraph-api ----

/** The install directory's package.json: langgraph-api beside our versions of the LangGraph runtime. */
function baselinePackageJson(): string {
  const ours = createRequire(join(repoRoot, 'package.json'));
  const versionOf = (name: string) => (ours(`${name}/package.json`) as { version: string }).version;
  return `${JSON.stringify(
    {
      private: true,
      type: 'module',
      description: 'The baseline of npm run bench:agent, installed by test/bench/agent.bench.ts',
      dependencies: {
        '@langchain/langgraph-api': LANGGRAPH_API_VERSION,
        '@langchain/langgraph': versionOf('@langchain/langgraph'),
        '@langchain/core': versionOf('@langchain/core'),
        '@langchain/langgraph-checkpoint': versionOf('@langchain/langgraph-checkpoint'),
        '@langchain/langgraph-sdk': '~2.0.0',
      },
    },
    null,
    2,
  )}\n`;
}

/** Installs langgraph-api into its directory unless it is there already; copies the graph beside it. */
function ensureBaselineInstalled(): void {
  mkdirSync(LANGGRAPH_API_DIR, { recursive: true });
  const manifest = join(LANGGRAPH_API_DIR, 'package.json');
  const wanted = baselinePackageJson();
  const installed =
    existsSync(join(LANGGRAPH_API_DIR, 'node_modules', '.package-lock.json')) &&
    existsSync(manifest) &&
    readFileSync(manifest, 'utf8') === wanted;
  if (!installed) {
    log(`installing @langchain/langgraph-api@${LANGGRAPH_API_VERSION} into ${LANGGRAPH_API_DIR} (once)`);
    writeFileSync(manifest, wanted);
    // Its peer ranges (checkpoint ~1.0, TypeScript 5 for schema extraction) are older than what it runs with here.
    execFileSync('npm', ['install', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: LANGGRAPH_API_DIR,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  // The same source as our example, resolving @langchain/langgraph from this directory.
  const graph = join(LANGGRAPH_API_DIR, 'noopGraph.ts');
  const source = readFileSync(GRAPH_SOURCE, 'utf8');
  if (!existsSync(graph) || readFileSync(graph, 'utf8') !== source) writeFileSync(graph, source);
}

interface BaselineResult {
  runs_wait: Phase;
  runs_wait_sequential: Phase;
  thread_runs_wait: Phase;
}

async function benchLanggraphApi(): Promise<BaselineResult> {
  ensureBaselineInstalled();
  const port = await freePort();
  const cwd = mkdtempSync(join(tmpdir(), 'bench-langgraph-api-'));
  const child = spawn(process.execPath, [import.meta.filename, '--langgraph-api', String(port), cwd], {
    env: { ...process.env, ...SERVER_ENV },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`langgraph-api exited with ${code}`))),
  );
  exited.catch(() => undefined);
  const url = `http://127.0.0.1:${port}`;
  const pool = new Pool(url, { connections: options.concurrency });
  try {
    await Promise.race([waitFor(`langgraph-api at ${url}`, async () => (await fetch(`${url}/ok`)).ok), exited]);
    log(`langgraph-api ${LANGGRAPH_API_VERSION}: ${url} (pid ${child.pid}, ${options.baselineWorkers} queue workers)`);
    const pids = { langgraph_api: child.pid!, bench: process.pid };
    const runs_wait = await measure('langgraph-api runs_wait', options.concurrency, runsWait(pool), pids);
    const runs_wait_sequential = await measure('langgraph-api runs_wait_sequential', 1, runsWait(pool), pids);
    const thread_runs_wait = await measure(
      'langgraph-api thread_runs_wait',
      options.concurrency,
      threadRunsWait(pool),
      pids,
    );
    return { runs_wait, runs_wait_sequential, thread_runs_wait };
  } finally {
    await pool.close();
    await stopChild(child);
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** The child: langgraph-api's server from its install directory, serving the copied graph, its state kept in `cwd`. */
async function runLanggraphApi(port: number, cwd: string): Promise<void> {
  const serverModule = join(LANGGRAPH_API_DIR, 'node_modules', '@langchain', 'langgraph-api', 'dist', 'server.mjs');
  const { startServer } = (await import(pathToFileURL(serverModule).href)) as {
    startServer(o: {
      port: number;
      nWorkers: number;
      host: string;
      cwd: string;
      graphs: Record<string, string>;
    }): Promise<{ host: string }>;
  };
  await startServer({
    port,
    nWorkers: options.baselineWorkers,
    host: '127.0.0.1',
    cwd,
    graphs: { [GRAPH_ID]: `${join(LANGGRAPH_API_DIR, 'noopGraph.ts')}:graph` },
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));
}

// ---- in process ----

/** graph.invoke of the same graph in this process, with a MemorySaver and a new thread each time. */
async function benchInProcess(): Promise<{ concurrent: Phase; sequential: Phase }> {
  const [{ MemorySaver }, { graph }] = await Promise.all([
    import('@langchain/langgraph'),
    import('../../examples/agent-server/noopGraph.ts'),
  ]);
  graph.checkpointer = new MemorySaver();
  const invoke: Send = async () => {
    const out = await graph.invoke({ messages: [userMessage] }, { configurable: { thread_id: randomUUID() } });
    return out.messages.length === 1 ? null : 'unexpected state';
  };
  const pids = { bench: process.pid };
  try {
    return {
      concurrent: await measure('in-process invoke', options.concurrency, invoke, pids),
      sequential: await measure('in-process invoke_sequential', 1, invoke, pids),
    };
  } finally {
    graph.checkpointer = undefined; // its tens of thousands of threads would weigh on this process's GC in the phases that follow
  }
}

// ---- main ----

const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a - b, 2));
const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : round(a / b, 2));

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  log(
    `concurrency ${options.concurrency}, ${options.warmupSeconds} s warm-up + ${options.seconds} s per phase${options.profile ? ', our server profiled' : ''}`,
  );
  const inProcess = await benchInProcess();
  const ours = await benchOurs();
  const baseline = options.skipBaseline ? null : await benchLanggraphApi();

  const result = {
    bench: 'agent',
    concurrency: options.concurrency,
    ours,
    langgraph_api: baseline && {
      version: LANGGRAPH_API_VERSION,
      ...baseline,
      a2a_send: null,
      a2a_note: '@langchain/langgraph-api (JS) serves no A2A endpoint: there is no JS baseline for message/send',
    },
    /** Stateless runs/wait: ours over langgraph-api's requests/s. */
    ratio_rps: ratio(ours.runs_wait.rps, baseline?.runs_wait.rps ?? null),
    ratio_rps_threads: ratio(ours.thread_runs_wait.rps, baseline?.thread_runs_wait.rps ?? null),
    in_process: inProcess,
    in_process_p50_ms: inProcess.concurrent.p50_ms,
    /**
     * Our server's CPU per stateless runs/wait over graph.invoke's CPU per run of the same graph
     * in this process, both at the same concurrency: what serving a run costs beyond running it.
     */
    server_cpu_ratio_to_invoke: ratio(
      ours.runs_wait.cpu_us_per_request.agent_server ?? null,
      inProcess.concurrent.cpu_us_per_request.bench ?? null,
    ),
    /** Our runs_wait p50 minus graph.invoke's, both at the same concurrency. */
    added_p50_ms: minus(ours.runs_wait.p50_ms, inProcess.concurrent.p50_ms),
    /** The same with one client at a time: the server's own latency, without queueing. */
    added_p50_ms_sequential: minus(ours.runs_wait_sequential.p50_ms, inProcess.sequential.p50_ms),
    langgraph_api_added_p50_ms: baseline && minus(baseline.runs_wait.p50_ms, inProcess.concurrent.p50_ms),
    targets,
    details: {
      workload: {
        seconds: options.seconds,
        warmup_seconds: options.warmupSeconds,
        graph: 'examples/agent-server/noopGraph.ts',
        thread_turns: options.turns,
        persistence: 'memory',
        langgraph_api_workers: options.baselineWorkers,
        profiled: options.profile,
      },
    },
  };
  benchRun.finish(result);
}

if (process.argv[2] === '--langgraph-api') await runLanggraphApi(Number(process.argv[3]), process.argv[4]!);
else await main();

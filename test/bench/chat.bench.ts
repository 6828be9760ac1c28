// Chat-app benchmark (`npm run bench:chat`): what the example chat app (examples/chat-app) adds
// to the agent's own streaming, and how its SSE fan-out holds up with many subscribers on one run.
//
// The app runs as a child process, as `npm run chat` runs it (memory checkpointer, scripted
// models with CHAT_SCRIPTED_TOKEN_DELAY_MS=0, tracing off), on a port of its own choosing, without
// API keys (CHAT_APP_AUTH=none, on loopback: no Kafka needed). Phases:
//   first token   BENCH_RUNS runs one after the other (after BENCH_WARMUP_RUNS), each on a new
//                 thread, message "hello": the stream (`messages`) is opened first, then run.start
//                 is sent; timed from sending run.start to the first `messages` event carrying a
//                 token of the model. The baseline is the same in this process, without HTTP:
//                 createChatAgent(new MemorySaver(), scripted, 0 ms) and `streamEvents` v3, timed
//                 from the call to the same event. "First token" is the model's first streamed
//                 token, its reasoning: the scripted model (like a provider) opens its reasoning
//                 block with the first word in `content-block-start`, then sends `reasoning-delta`s,
//                 so the first event with reasoning or text, start or delta, counts. The first
//                 answer token (text, after the reasoning) is reported beside it.
//   fan-out       BENCH_SUBSCRIBERS streams (channels BENCH_CHANNELS) opened on one new thread,
//                 then one run.start whose message makes the coordinator delegate to both
//                 subagents; timed from run.start until every stream has ended, BENCH_FANOUT_RUNS
//                 times (each on a new thread; the median run is reported, with all wall times).
//                 Events and bytes delivered are counted per subscriber; the app's resident memory
//                 is read before the streams open, with them open, and sampled every 10 ms during
//                 the run (the peak); CPU per process over the run. The same run with one
//                 subscriber, and in this process without HTTP, are the references.
//
// Progress goes to stderr; stdout gets exactly one JSON line (`npm run -s bench:chat | tail -1`),
// also written to bench/results/chat.json (results.ts).
// With 0 ms between tokens the scripted run never returns to the event loop (every step is a
// promise job), and Node's HTTP response corks each write until the next tick, which comes only
// once the microtask queue is empty: the app's frames leave together when the run (or the model's
// turn) has ended, so "first token" through the app is close to "last token". A real model's
// chunks arrive by I/O, each a turn of the loop: BENCH_TOKEN_DELAY_MS=1 shows that case.
//
// Knobs: BENCH_RUNS=50 BENCH_WARMUP_RUNS=10 BENCH_SUBSCRIBERS=200 BENCH_FANOUT_RUNS=3
// BENCH_TOKEN_DELAY_MS=0 BENCH_CHANNELS=messages,tools,lifecycle BENCH_PROFILE=1 (the app under --cpu-prof: its hotspots
// during the fan-out runs go into the JSON line; the profiler slows it, so such a run is marked).
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { MemorySaver } from '@langchain/langgraph';
import { createChatAgent } from '../../examples/chat-app/agent/deepAgent.ts';
import { repoRoot, startService, waitFor, type ServiceProcess } from '../support/serviceProcess.ts';
import { sseEvents } from '../support/sseEvents.ts';
import { summariseCpuProfile, type ProfileSummary } from './cpuProfile.ts';
import { CpuMeter, coresUsed, monotonicUs, percentile, round, rssMiB } from './measure.ts';
import { startBenchRun } from './results.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const options = {
  runs: num('BENCH_RUNS', 50),
  warmupRuns: num('BENCH_WARMUP_RUNS', 10),
  subscribers: num('BENCH_SUBSCRIBERS', 200),
  fanoutRuns: num('BENCH_FANOUT_RUNS', 3),
  tokenDelayMs: num('BENCH_TOKEN_DELAY_MS', 0),
  channels: (env.BENCH_CHANNELS ?? 'messages,tools,lifecycle')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean),
  profile: env.BENCH_PROFILE === '1',
};
const goals = { added_first_token_p50_ms: 20 };
const GREETING = 'hello';
const DELEGATING = 'Research LangGraph streaming and calculate (17 + 25) * 3';

for (const [name, value] of Object.entries({
  BENCH_RUNS: options.runs,
  BENCH_SUBSCRIBERS: options.subscribers,
  BENCH_FANOUT_RUNS: options.fanoutRuns,
}))
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`${name} must be a positive integer (got ${value})`);
for (const [name, value] of Object.entries({
  BENCH_WARMUP_RUNS: options.warmupRuns,
  BENCH_TOKEN_DELAY_MS: options.tokenDelayMs,
}))
  if (!(Number.isInteger(value) && value >= 0)) throw new Error(`${name} must be an integer ≥ 0 (got ${value})`);

// The scripted models whatever the caller's environment holds (the app picks OpenAI's when a key is set).
delete process.env.OPENAI_API_KEY;

const benchStart = performance.now();
const log = (msg: string) =>
  process.stderr.write(`[bench:chat] ${((performance.now() - benchStart) / 1000).toFixed(1)} s: ${msg}\n`);
const stats = (samples: number[], digits = 2) => ({
  p50: round(percentile(samples, 50), digits),
  p95: round(percentile(samples, 95), digits),
  max: round(samples.length ? Math.max(...samples) : null, digits),
  n: samples.length,
});
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : round(a - b, 2));
const userInput = (content: string) => ({ messages: [{ role: 'user', content }] });

/** A protocol event as the graph yields it and as the app sends it (`params.data` alike). */
interface ProtocolEvent {
  method: string;
  params: { namespace?: string[]; data?: unknown };
}

/** Whether a `messages` event carries a token of the model: its reasoning or its answer text. */
function tokenIn(event: ProtocolEvent): 'reasoning' | 'text' | null {
  if (event.method !== 'messages') return null;
  const data = event.params.data as
    | { event?: string; content?: { type?: string; reasoning?: string; text?: string }; delta?: { type?: string } }
    | undefined;
  if (data?.event === 'content-block-delta')
    return data.delta?.type === 'reasoning-delta' ? 'reasoning' : data.delta?.type === 'text-delta' ? 'text' : null;
  if (data?.event === 'content-block-start') {
    if (data.content?.type === 'reasoning' && data.content.reasoning) return 'reasoning';
    if (data.content?.type === 'text' && data.content.text) return 'text';
  }
  return null;
}

interface FirstTokens {
  firstTokenMs: number | null;
  firstAnswerMs: number | null;
}

/** Notes when the first token and the first answer token of a run go by. */
function tokenClock(t0: number) {
  const seen: FirstTokens = { firstTokenMs: null, firstAnswerMs: null };
  return {
    seen,
    /** True once both are seen (the rest of the run need not be parsed). */
    observe(event: ProtocolEvent): boolean {
      const token = tokenIn(event);
      if (token) {
        const at = performance.now() - t0;
        seen.firstTokenMs ??= at;
        if (token === 'text') seen.firstAnswerMs ??= at;
      }
      return seen.firstAnswerMs !== null;
    },
  };
}

// ---- in process ----

type ChatAgent = Awaited<ReturnType<typeof createChatAgent>>;

/** One run of the agent in this process, drained: when its first tokens came, its events, its wall time. */
async function inProcessRun(
  agent: ChatAgent,
  content: string,
): Promise<FirstTokens & { events: number; wallMs: number }> {
  const t0 = performance.now();
  const clock = tokenClock(t0);
  const stream = (await agent.streamEvents(
    userInput(content) as never,
    { version: 'v3', configurable: { thread_id: randomUUID() } } as never,
  )) as unknown as AsyncIterable<ProtocolEvent>;
  let events = 0;
  let done = false;
  for await (const event of stream) {
    events++;
    if (!done) done = clock.observe(event);
  }
  return { ...clock.seen, events, wallMs: performance.now() - t0 };
}

async function benchInProcess() {
  const agent = await createChatAgent(new MemorySaver(), { provider: 'scripted', tokenDelayMs: options.tokenDelayMs });
  for (let i = 0; i < options.warmupRuns; i++) await inProcessRun(agent, GREETING);
  const runs: FirstTokens[] = [];
  for (let i = 0; i < options.runs; i++) runs.push(await inProcessRun(agent, GREETING));
  // The fan-out's run, for its event count and duration without HTTP (all channels: the graph yields every event).
  const delegating: number[] = [];
  const delegatingFirstToken: number[] = [];
  let delegatingEvents = 0;
  for (let i = 0; i < options.fanoutRuns; i++) {
    const run = await inProcessRun(agent, DELEGATING);
    delegating.push(run.wallMs);
    if (run.firstTokenMs !== null) delegatingFirstToken.push(run.firstTokenMs);
    delegatingEvents = run.events;
  }
  return {
    first_token_ms: stats(runs.map((r) => r.firstTokenMs!).filter((v) => v !== null)),
    first_answer_token_ms: stats(runs.map((r) => r.firstAnswerMs!).filter((v) => v !== null)),
    delegating_run: {
      wall_ms: stats(delegating, 1),
      first_token_ms: stats(delegatingFirstToken, 1),
      events_all_channels: delegatingEvents,
    },
  };
}

// ---- the app ----

interface ChatAppProcess {
  service: ServiceProcess;
  url: string;
}

async function startChatApp(profileDir: string): Promise<ChatAppProcess> {
  const service = startService(
    'examples/chat-app/main.ts',
    {
      HOST: '127.0.0.1',
      CHAT_APP_PORT: '0', // the app logs the port it got
      CHAT_APP_AUTH: 'none',
      CHAT_CHECKPOINTER: 'memory',
      CHAT_SCRIPTED_TOKEN_DELAY_MS: String(options.tokenDelayMs),
      LANGSMITH_TRACING: 'false',
      LOG_LEVEL: 'info', // for the "listening" line; the app logs nothing per request at info
      ...(options.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
    },
    'bench-chat',
  );
  let output = '';
  service.child.stdout!.on('data', (chunk: Buffer) => {
    if (output.length < 100_000) output += chunk.toString('utf8');
  });
  const exited = new Promise<never>((_, reject) =>
    service.child.once('exit', (code) =>
      reject(new Error(`the chat app exited with ${code}; see .local/logs/test/bench-chat.log`)),
    ),
  );
  exited.catch(() => undefined);
  const url = await Promise.race([
    waitFor(
      'the chat app to listen',
      async () => {
        const line = output.split('\n').find((l) => l.includes('"chat app listening"'));
        return line ? (JSON.parse(line) as { url: string }).url : null;
      },
      60_000,
      25,
    ),
    exited,
  ]);
  return { service, url };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

async function runStart(pool: Pool, threadId: string, content: string): Promise<void> {
  const res = await pool.request({
    method: 'POST',
    path: `/api/threads/${threadId}/commands`,
    headers: JSON_HEADERS,
    body: JSON.stringify({
      id: 1,
      method: 'run.start',
      params: { assistant_id: 'deep_agent', input: userInput(content) },
    }),
  });
  const answer = (await res.body.json()) as { type?: string };
  if (res.statusCode !== 200 || answer.type !== 'success')
    throw new Error(`run.start answered ${res.statusCode}: ${JSON.stringify(answer)}`);
}

/** An SSE stream of the thread, open (its headers in); `read` consumes it to its end. */
async function openStream(pool: Pool, threadId: string, channels: string[]) {
  const res = await pool.request({
    method: 'POST',
    path: `/api/threads/${threadId}/stream`,
    headers: JSON_HEADERS,
    body: JSON.stringify({ channels }),
  });
  if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}: ${await res.body.text()}`);
  res.body.setEncoding('utf8');
  return {
    /** Reads to the end; `onEvent` sees parsed events until it returns true, later ones are only counted. */
    async read(onEvent?: (event: ProtocolEvent) => boolean) {
      let buffer = '';
      let events = 0;
      let bytes = 0;
      let errors = 0;
      let parsing = onEvent !== undefined;
      let last = '';
      for await (const chunk of res.body as AsyncIterable<string>) {
        bytes += Buffer.byteLength(chunk);
        buffer += chunk;
        const end = buffer.lastIndexOf('\n\n');
        if (end < 0) continue;
        const complete = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const e of sseEvents(complete)) {
          if (e.event === null) continue;
          if (e.event === 'error') errors++;
          events++;
          last = e.data;
          if (parsing) parsing = !onEvent!(JSON.parse(e.data) as ProtocolEvent);
        }
      }
      const lastEvent = last ? (JSON.parse(last) as ProtocolEvent) : null;
      const ended =
        lastEvent?.method === 'lifecycle' && (lastEvent.params.namespace ?? []).length === 0
          ? ((lastEvent.params.data as { event?: string }).event ?? null)
          : null;
      return { events, bytes, errors, ended, endedAt: performance.now() };
    },
  };
}

/** One run through the app: stream opened, then run.start; its first tokens as the subscriber saw them. */
async function appRun(pool: Pool, content: string): Promise<FirstTokens> {
  const threadId = randomUUID();
  const stream = await openStream(pool, threadId, ['messages']);
  const t0 = performance.now();
  const clock = tokenClock(t0);
  const [read] = await Promise.all([stream.read((e) => clock.observe(e)), runStart(pool, threadId, content)]);
  if (read.ended !== null && read.ended !== 'completed') throw new Error(`a run ended ${read.ended}`);
  return clock.seen;
}

interface FanoutRun {
  wallMs: number;
  events: number[];
  bytes: number[];
  firstTokenMs: number[];
  endMs: number[];
  incomplete: number;
  errors: number;
  rssBeforeMiB: number | null;
  rssOpenMiB: number | null;
  rssPeakMiB: number | null;
  cores: Record<string, number | null>;
  cpuSeconds: Record<string, number | null>;
  window: { fromUs: number; toUs: number };
}

/** `subscribers` streams on one new thread, then one delegating run: until every stream has ended. */
async function fanoutRun(pool: Pool, pid: number, subscribers: number): Promise<FanoutRun> {
  const threadId = randomUUID();
  const rssBeforeMiB = rssMiB(pid);
  const streams = await Promise.all(
    Array.from({ length: subscribers }, () => openStream(pool, threadId, options.channels)),
  );
  const rssOpenMiB = rssMiB(pid);
  let rssPeakMiB = rssOpenMiB ?? 0;
  const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rssMiB(pid) ?? 0)), 10);
  const meter = new CpuMeter({ chat_app: pid, bench: process.pid });
  const fromUs = monotonicUs();
  meter.start();
  const t0 = performance.now();
  const reads = streams.map((s) => {
    const firstToken = { ms: null as number | null };
    return s
      .read((e) => (tokenIn(e) ? ((firstToken.ms = performance.now() - t0), true) : false))
      .then((r) => ({ ...r, firstTokenMs: firstToken.ms }));
  });
  await runStart(pool, threadId, DELEGATING);
  const done = await Promise.all(reads);
  const wallMs = performance.now() - t0;
  const cpu = meter.stop();
  const toUs = monotonicUs();
  clearInterval(sampler);
  rssPeakMiB = Math.max(rssPeakMiB, rssMiB(pid) ?? 0);
  return {
    wallMs,
    events: done.map((d) => d.events),
    bytes: done.map((d) => d.bytes),
    firstTokenMs: done.map((d) => d.firstTokenMs).filter((v): v is number => v !== null),
    endMs: done.map((d) => d.endedAt - t0),
    incomplete: done.filter((d) => d.ended !== 'completed').length,
    errors: done.reduce((n, d) => n + d.errors, 0),
    rssBeforeMiB,
    rssOpenMiB,
    rssPeakMiB,
    cores: coresUsed(cpu),
    cpuSeconds: cpu.cpuSeconds,
    window: { fromUs, toUs },
  };
}

const median = <T>(runs: T[], by: (r: T) => number): T =>
  [...runs].sort((a, b) => by(a) - by(b))[Math.floor((runs.length - 1) / 2)]!;

function fanoutSummary(runs: FanoutRun[]) {
  const run = median(runs, (r) => r.wallMs);
  const total = run.events.reduce((a, b) => a + b, 0);
  return {
    wall_ms: round(run.wallMs, 1),
    wall_ms_all_runs: runs.map((r) => round(r.wallMs, 1)),
    events_delivered: total,
    events_per_s: round(total / (run.wallMs / 1000), 0),
    mib_per_s: round(run.bytes.reduce((a, b) => a + b, 0) / 2 ** 20 / (run.wallMs / 1000), 1),
    events_per_subscriber: { min: Math.min(...run.events), max: Math.max(...run.events) },
    bytes_per_subscriber: Math.max(...run.bytes),
    incomplete_streams: run.incomplete,
    error_events: run.errors,
    first_token_ms: stats(run.firstTokenMs, 1),
    stream_end_ms: stats(run.endMs, 1),
    rss_mib: {
      before_streams: round(run.rssBeforeMiB, 0),
      streams_open: round(run.rssOpenMiB, 0),
      peak_during_run: round(run.rssPeakMiB, 0),
    },
    cores: run.cores,
    cpu_us_per_event: Object.fromEntries(
      Object.entries(run.cpuSeconds).map(([name, s]) => [name, s === null ? null : round((s * 1e6) / total, 1)]),
    ),
  };
}

async function benchApp() {
  const profileDir = join(repoRoot, '.local', 'bench', 'prof', `chat-app-${Date.now()}`);
  const app = await startChatApp(profileDir);
  const pid = app.service.pid;
  log(`chat app ${app.url} (pid ${pid})${options.profile ? ', profiled' : ''}`);
  const pool = new Pool(app.url, { connections: options.subscribers + 8 });
  try {
    log(`first token: ${options.warmupRuns} warm-up + ${options.runs} runs through the app`);
    for (let i = 0; i < options.warmupRuns; i++) await appRun(pool, GREETING);
    const runs: FirstTokens[] = [];
    for (let i = 0; i < options.runs; i++) runs.push(await appRun(pool, GREETING));
    const firstToken = {
      first_token_ms: stats(runs.map((r) => r.firstTokenMs!).filter((v) => v !== null)),
      first_answer_token_ms: stats(runs.map((r) => r.firstAnswerMs!).filter((v) => v !== null)),
    };

    log(`fan-out: 1 subscriber, ${options.fanoutRuns} runs (reference)`);
    await fanoutRun(pool, pid, 1); // warm-up of the delegating path
    const single: FanoutRun[] = [];
    for (let i = 0; i < options.fanoutRuns; i++) single.push(await fanoutRun(pool, pid, 1));
    log(`fan-out: ${options.subscribers} subscribers, ${options.fanoutRuns} runs`);
    const many: FanoutRun[] = [];
    for (let i = 0; i < options.fanoutRuns; i++) many.push(await fanoutRun(pool, pid, options.subscribers));
    const rssAfterMiB = rssMiB(pid);
    await pool.close();
    await app.service.stop(); // a profile is written as the process exits
    let profile: ProfileSummary | undefined;
    if (options.profile) {
      const file = existsSync(profileDir) ? readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile')) : undefined;
      if (file) {
        log(`CPU profile: ${join(profileDir, file)}`);
        const window = {
          fromUs: Math.min(...many.map((r) => r.window.fromUs)),
          toUs: Math.max(...many.map((r) => r.window.toUs)),
        };
        profile = summariseCpuProfile(join(profileDir, file), window, 10);
      } else log(`no CPU profile in ${profileDir}`);
    }
    return {
      firstToken,
      single: fanoutSummary(single),
      many: { ...fanoutSummary(many), rss_mib_after_all_runs: round(rssAfterMiB, 0) },
      profile,
    };
  } finally {
    await pool.close().catch(() => undefined);
    await app.service.stop();
  }
}

// ---- main ----

async function main(): Promise<void> {
  const benchRun = startBenchRun();
  log(`in process: ${options.warmupRuns} warm-up + ${options.runs} runs of the agent's streamEvents`);
  const inProcess = await benchInProcess();
  const app = await benchApp();
  const result = {
    bench: 'chat',
    first_token_definition:
      "time to the first `messages` event carrying a model token: the coordinator's first reasoning word (its reasoning block's content-block-start, then reasoning-deltas); the first answer token is the first text",
    first_token: {
      app_ms: app.firstToken.first_token_ms,
      in_process_ms: inProcess.first_token_ms,
      added_p50_ms: minus(app.firstToken.first_token_ms.p50, inProcess.first_token_ms.p50),
      added_p95_ms: minus(app.firstToken.first_token_ms.p95, inProcess.first_token_ms.p95),
    },
    first_answer_token: {
      app_ms: app.firstToken.first_answer_token_ms,
      in_process_ms: inProcess.first_answer_token_ms,
      added_p50_ms: minus(app.firstToken.first_answer_token_ms.p50, inProcess.first_answer_token_ms.p50),
    },
    fanout: {
      subscribers: options.subscribers,
      channels: options.channels,
      message: DELEGATING,
      many: app.many,
      one_subscriber: app.single,
      in_process: inProcess.delegating_run,
    },
    token_delay_ms: options.tokenDelayMs,
    ...(options.tokenDelayMs === 0
      ? {
          note: "with 0 ms between tokens the run never yields to the event loop, so the app's corked HTTP writes leave when it ends: first token through the app ≈ the run's end (BENCH_TOKEN_DELAY_MS=1 for a model whose tokens arrive by I/O)",
        }
      : {}),
    goals,
    met: {
      added_first_token_p50:
        (minus(app.firstToken.first_token_ms.p50, inProcess.first_token_ms.p50) ?? Infinity) <
        goals.added_first_token_p50_ms,
    },
    ...(app.profile ? { profile_fanout: app.profile } : {}),
    details: {
      workload: {
        runs: options.runs,
        warmup_runs: options.warmupRuns,
        fanout_runs: options.fanoutRuns,
        first_token_message: GREETING,
        checkpointer: 'memory',
        models: `scripted, ${options.tokenDelayMs} ms between tokens`,
        profiled: options.profile,
      },
    },
  };
  benchRun.finish(result);
}

await main();

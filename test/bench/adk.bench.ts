// ADK benchmark (`npm run bench:adk`): what serving a Google ADK agent through wrap(runner) on the
// agent server costs per turn, against calling the same ADK runner directly in this process.
// Same agent and model in every phase: the example `adk_echo` (examples/adk-agent/echoAgent.ts:
// an LlmAgent whose offline EchoLlm calls one tool, then streams its answer), so a turn is two
// model calls and one tool call.
//
// Phases, each BENCH_TURNS turns one after the other (after BENCH_WARMUP_TURNS of the same), each
// turn on a new session / thread with one user message:
//   runner_direct   runner.runAsync with ADK's InMemorySessionService, SSE streaming, every
//                   event read: the floor
//   wrapped_graph   the wrapped graph's invoke with LangGraph's MemorySaver, in this process:
//                   the wrapper's own cost (the session kept in the checkpoint, the turn as a
//                   chat-model call)
//   langgraph_floor a one-node graph that does nothing (examples/agent-server/noopGraph.ts), invoked
//                   the same way: what any LangGraph graph costs per turn, ADK or not
//   server_wait     POST /threads/{id}/runs/wait to an agent server (child process, in-memory
//                   checkpointer, tracing off, AGENT_SERVER_AUTH=none) on a thread created
//                   beforehand (not timed): wrapper and server
// "added" is each phase's p50 minus the direct runner's. Progress on stderr; stdout gets exactly
// one JSON line (`npm run -s bench:adk | tail -1`), also written to bench/results/adk.json. Knobs: BENCH_TURNS=300 BENCH_WARMUP_TURNS=50.
import { randomUUID } from 'node:crypto';
import { InMemorySessionService, Runner } from '@google/adk';
import { MemorySaver } from '@langchain/langgraph';
import { Pool } from 'undici';
import { agent, graph } from '../../examples/adk-agent/echoAgent.ts';
import { graph as noopGraph } from '../../examples/agent-server/noopGraph.ts';
import { EXAMPLES_CONFIG, startAgentServer } from '../support/agentServer.ts';
import { monotonicUs, percentile, round } from './measure.ts';
import { startBenchRun } from './results.ts';

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const turns = num('BENCH_TURNS', 300);
const warmup = num('BENCH_WARMUP_TURNS', 50);
const goal = { added_p50_ms: 2 };
const benchRun = startBenchRun();
const log = (message: string) => process.stderr.write(`[bench:adk] ${message}\n`);

async function timed(label: string, turn: (i: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await turn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < turns; i += 1) {
    const start = monotonicUs();
    await turn(i);
    samples.push((monotonicUs() - start) / 1000);
  }
  log(`${label}: p50 ${round(percentile(samples, 50), 2)} ms`);
  return samples;
}

const summary = (samples: number[]) => ({
  p50: round(percentile(samples, 50), 3),
  p95: round(percentile(samples, 95), 3),
  p99: round(percentile(samples, 99), 3),
  n: samples.length,
});

// The floor: the same agent under a plain ADK runner.
const direct = new Runner({ appName: 'adk_echo', agent, sessionService: new InMemorySessionService() });
const runnerDirect = await timed('runner_direct', async () => {
  const sessionId = randomUUID();
  await direct.sessionService.createSession({ appName: 'adk_echo', userId: 'anonymous', sessionId });
  let answer = '';
  for await (const event of direct.runAsync({
    userId: 'anonymous',
    sessionId,
    newMessage: { role: 'user', parts: [{ text: 'hello from the benchmark' }] },
    runConfig: { streamingMode: 'sse' as never },
  }))
    if (!event.partial && event.content?.parts?.[0]?.text) answer = event.content.parts[0].text;
  if (!answer.startsWith('Turn 1')) throw new Error(`unexpected answer: ${answer}`);
});

// The wrapper in this process.
graph.checkpointer = new MemorySaver();
const wrapped = await timed('wrapped_graph', async () => {
  const out = (await graph.invoke({ messages: [{ role: 'user', content: 'hello from the benchmark' }] } as never, {
    configurable: { thread_id: randomUUID() },
  })) as { last_reply?: string };
  if (!out.last_reply?.startsWith('Turn 1')) throw new Error(`unexpected answer: ${out.last_reply}`);
});

// LangGraph's own floor: a graph that does nothing, on the same checkpointer.
noopGraph.checkpointer = new MemorySaver();
const floor = await timed('langgraph_floor', async () => {
  await noopGraph.invoke({ messages: [{ role: 'user', content: 'hello from the benchmark' }] } as never, {
    configurable: { thread_id: randomUUID() },
  });
});

// Through the agent server.
const server = await startAgentServer('bench-adk', {
  configFile: EXAMPLES_CONFIG,
  env: { AGENT_SERVER_AUTH: 'none', LOG_LEVEL: 'warn' },
});
const pool = new Pool(server.url, { connections: 1 });
const post = async (path: string, body: unknown) => {
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};
let serverWait: number[];
try {
  const threads: string[] = [];
  for (let i = 0; i < warmup + turns; i += 1) threads.push(String((await post('/threads', {})).thread_id));
  let next = 0;
  serverWait = await timed('server_wait', async () => {
    const out = await post(`/threads/${threads[next++]}/runs/wait`, {
      assistant_id: 'adk_echo',
      input: { messages: [{ type: 'human', content: 'hello from the benchmark' }] },
    });
    if (!String(out.last_reply).startsWith('Turn 1')) throw new Error(`unexpected answer: ${JSON.stringify(out)}`);
  });
} finally {
  await pool.close();
  await server.stop();
}

const p50 = (s: number[]) => percentile(s, 50)!;
const added = {
  wrapper_ms: round(p50(wrapped) - p50(runnerDirect), 3),
  wrapper_beyond_langgraph_ms: round(p50(wrapped) - p50(runnerDirect) - p50(floor), 3),
  wrapper_and_server_ms: round(p50(serverWait) - p50(runnerDirect), 3),
};
benchRun.finish({
  bench: 'adk',
  turn: 'adk_echo: one user message, two model calls (EchoLlm) and one tool call, on a new session/thread',
  runner_direct_ms: summary(runnerDirect),
  wrapped_graph_ms: summary(wrapped),
  langgraph_floor_ms: summary(floor),
  server_wait_ms: summary(serverWait),
  added_p50: added,
  goals: goal,
  met: { added_p50: added.wrapper_and_server_ms !== null && added.wrapper_and_server_ms < goal.added_p50_ms },
  details: { turns, warmup_turns: warmup },
});
process.exit(0);

// The ADK assistant `adk_echo` (examples/adk-agent: a Google ADK LlmAgent served through
// wrap(runner)) on a real agent server, with the official clients unchanged: the LangGraph SDK
// (JS and Python) waiting and streaming, a second turn that sees the session of the first,
// state_delta and output_key; A2A message/send and message/stream; the authenticated user as the
// ADK user id; and the session surviving an agent-server restart with PostgreSQL checkpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { a2aClientFactory, userMessage } from '../support/a2aTesting.ts';
import { EXAMPLES_CONFIG, startAgentServer, writeAgentConfig, type AgentServer } from '../support/agentServer.ts';
import { ensurePythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { scratchPostgres } from '../support/scratchPostgres.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';
import { api, createWorkspaces, tracingUrl } from '../support/tracingClient.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';

const ADK_GRAPH = `${join(repoRoot, 'examples', 'adk-agent', 'echoAgent.ts')}:graph`;
/** The ADK assistant alone, for the servers of one test. */
const adkOnly = () => writeAgentConfig({ graphs: { adk_echo: ADK_GRAPH } });
const human = (content: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ type: 'human', content }],
  ...extra,
});

let server: AgentServer;
let client: Client;
beforeAll(async () => {
  server = await startAgentServer('adk', { configFile: EXAMPLES_CONFIG });
  client = new Client({ apiUrl: server.url, apiKey: server.apiKey });
}, 120_000);
afterAll(() => server?.stop());

describe('adk_echo with the LangGraph SDK (JS)', () => {
  it('runs/wait answers with one assistant message and the output_key; the next turn sees the session; state_delta changes it', async () => {
    const { thread_id } = await client.threads.create();
    const first = (await client.runs.wait(thread_id, 'adk_echo', { input: human('hello there world') })) as any;
    expect(first.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    expect(first.messages[1].content).toBe('Turn 1: you said "hello there world" (3 words, 3 in all)');
    expect(first.last_reply).toBe(first.messages[1].content);
    const second = (await client.runs.wait(thread_id, 'adk_echo', {
      input: human('and more', { state_delta: { tone: 'cheerful' } }),
    })) as any;
    expect(second.messages.at(-1).content).toBe('Turn 2: you said "and more" (2 words, 5 in all, cheerful)');
    const state = (await client.threads.getState(thread_id)).values as any;
    expect(state.adk_session).toMatchObject({
      id: thread_id,
      appName: 'adk_echo',
      userId: 'anonymous',
      state: { word_total: 5, tone: 'cheerful' },
    });
  });

  it('streams the partial tokens in messages mode', async () => {
    const { thread_id } = await client.threads.create();
    const partials: string[] = [];
    for await (const part of client.runs.stream(thread_id, 'adk_echo', {
      input: human('tokens one by one'),
      streamMode: 'messages-tuple',
    })) {
      if (part.event === 'messages') partials.push(String((part.data as unknown as [{ content: string }])[0].content));
    }
    expect(partials.length).toBeGreaterThan(5);
    expect(partials.join('')).toBe('Turn 1: you said "tokens one by one" (4 words, 4 in all)');
  });
});

describe('adk_echo with the LangGraph SDK (Python)', () => {
  it(
    'waits, continues with a state_delta, streams partial tokens',
    async () => {
      const pyenv = await ensurePythonEnv();
      const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_adk.py', [server.url], {
        LANGGRAPH_API_KEY: server.apiKey,
      });
      expect(result.first).toEqual({
        answer: 'Turn 1: you said "hello from python" (3 words, 3 in all)',
        last_reply: 'Turn 1: you said "hello from python" (3 words, 3 in all)',
        keys: ['last_reply', 'messages'],
      });
      expect(result.second).toBe('Turn 2: you said "again" (1 words, 4 in all, calm)');
      expect(result.partials.length).toBeGreaterThan(3);
      expect(result.partials.at(-1)).toBe('Turn 3: you said "stream this turn" (3 words, 7 in all, calm)');
      expect(result.session_state).toMatchObject({ word_total: 7, tone: 'calm' });
    },
    20 * 60_000,
  );
});

describe('adk_echo over A2A', () => {
  it('answers message/send and message/stream, a context continuing the session', async () => {
    const a2a = await a2aClientFactory(server.apiKey).createFromUrl(`${server.url}/a2a/adk_echo/`);
    const sent: any = await a2a.sendMessage({
      tenant: '',
      message: userMessage('over a2a'),
      configuration: undefined,
      metadata: undefined,
    });
    const text = (task: any) => JSON.stringify(task);
    expect(text(sent)).toContain('Turn 1: you said \\"over a2a\\" (2 words, 2 in all)');
    const contextId = sent.contextId;
    const events = [];
    for await (const event of a2a.sendMessageStream({
      tenant: '',
      message: userMessage('streamed too', contextId),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(event);
    expect(text(events)).toContain('Turn 2: you said \\"streamed too\\" (2 words, 4 in all)');
  });
});

describe('the ADK user id and durability', () => {
  it('is the authenticated user when the server has an auth module', async () => {
    const auth = `${join(repoRoot, 'test', 'services', 'agent-server', 'fixtures', 'ownerAuth.ts')}:auth`;
    const owners = await startAgentServer('adk-owners', {
      configFile: writeAgentConfig({ graphs: { adk_echo: ADK_GRAPH }, auth: { path: auth } }),
    });
    try {
      const alice = new Client({ apiUrl: owners.url, defaultHeaders: { authorization: 'Bearer token-alice' } });
      const { thread_id } = await alice.threads.create();
      await alice.runs.wait(thread_id, 'adk_echo', { input: human('who am I') });
      expect(((await alice.threads.getState(thread_id)).values as any).adk_session.userId).toBe('alice');
    } finally {
      await owners.stop();
    }
  });

  it('with PostgreSQL checkpoints the session survives a restart of the agent server', async () => {
    const db = await scratchPostgres('adk');
    let durable = await startAgentServer('adk-durable-1', { configFile: adkOnly(), env: db.agentServerEnv });
    try {
      const c = new Client({ apiUrl: durable.url, apiKey: durable.apiKey });
      const { thread_id } = await c.threads.create();
      await c.runs.wait(thread_id, 'adk_echo', {
        input: human('before the restart', { state_delta: { tone: 'warm' } }),
      });
      const port = Number(new URL(durable.url).port);
      await durable.stop();
      durable = await startAgentServer('adk-durable-2', { configFile: adkOnly(), env: db.agentServerEnv, port });
      const after = (await new Client({ apiUrl: durable.url, apiKey: durable.apiKey }).runs.wait(
        thread_id,
        'adk_echo',
        { input: human('after it') },
      )) as any;
      expect(after.messages.at(-1).content).toBe('Turn 2: you said "after it" (2 words, 5 in all, warm)');
    } finally {
      await durable.stop();
      await db.drop();
    }
  });
});

describe('tracing', () => {
  it("with LANGSMITH_TRACING on, ADK's spans reach the tracing API over OTLP, in the thread of the agent server's own run", {
    timeout: 150_000,
  }, async () => {
    const workspace = (await createWorkspaces(1))[0]!;
    const project = `adk-${crypto.randomUUID().slice(0, 8)}`;
    const traced = await startAgentServer('adk-traced', {
      configFile: adkOnly(),
      env: {
        LANGSMITH_TRACING: 'true',
        LANGSMITH_ENDPOINT: tracingUrl(),
        LANGSMITH_API_KEY: workspace.apiKey,
        LANGSMITH_PROJECT: project,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    try {
      const c = new Client({ apiUrl: traced.url, apiKey: traced.apiKey });
      const { thread_id } = await c.threads.create();
      await c.runs.wait(thread_id, 'adk_echo', { input: human('trace me') });
      const projectId = projectIdForName(workspace.id, project);
      // Two traces in the thread: the agent server's run (LangChain's tracer) and ADK's invocation (OTLP).
      const names = await waitFor(
        'both traces in the thread',
        async () => {
          const res = await api(`/runs/query`, {
            apiKey: workspace.apiKey,
            method: 'POST',
            json: { session: [projectId], select: ['name', 'trace_id', 'extra'], limit: 100 },
          });
          const runs = (
            (res.body.runs ?? []) as { name: string; extra?: { metadata?: { thread_id?: string } } }[]
          ).filter((r) => r.extra?.metadata?.thread_id === thread_id);
          const found = runs.map((r) => r.name);
          return found.includes('adk_echo') &&
            found.some((n) => /call_llm|generate_content|invocation|invoke_agent/.test(n)) &&
            found.some((n) => /count_words/.test(n))
            ? found
            : null;
        },
        60_000,
        250,
      );
      expect(names).toEqual(expect.arrayContaining(['adk_echo']));
      // The thread's traces (a read model of its own, projected from the same runs a moment later).
      const traces = await waitFor(
        'both traces listed in the thread',
        async () => {
          const res = await api(
            `/api/v2/threads/${thread_id}/traces?project_id=${projectId}&selects=TRACE_ID&selects=NAME`,
            { apiKey: workspace.apiKey },
          );
          return res.status === 200 && res.body.items.length >= 2 ? (res.body.items as unknown[]) : null;
        },
        60_000,
        250,
      );
      expect(traces.length).toBe(2);
    } finally {
      await traced.stop();
    }
  });
});

// The example chat app (examples/chat-app) on the agent streaming protocol, over plain HTTP and
// SSE, as a process of its own: API keys and workspaces (each workspace's threads its own), every
// endpoint and its errors (the platform's `{error, detail}`), the stream's replay, filters and
// `since`, subagents under their own namespaces, reasoning, the bounded run log, durability
// across a restart with PostgreSQL checkpoints, and tracing into the caller's workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import pg from 'pg';
import {
  as,
  chatCall,
  eventsWithin,
  openStream,
  sendCommand,
  startChatApp,
  startRun,
  streamedText,
  userMessage,
  type ChatAppProcess,
  type ChatCaller,
  type ProtocolEvent,
} from '../support/chatApp.ts';
import { scratchPostgres } from '../support/scratchPostgres.ts';
import { freePort, startService, waitFor } from '../support/serviceProcess.ts';
import { api, createWorkspaces, tracingUrl } from '../support/tracingClient.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';

const BOTH = 'Research LangGraph streaming and calculate (17 + 25) * 3';
const ALL_CHANNELS = ['values', 'updates', 'messages', 'tools', 'lifecycle', 'input', 'checkpoints', 'tasks', 'custom'];

let app: ChatAppProcess;
beforeAll(async () => {
  app = await startChatApp('protocol');
});
/** An app whose tokens stream 20 ms apart, for the tests that act while a run goes on; started by the first that needs it. */
let slowApp: Promise<ChatAppProcess> | undefined;
const slowStreaming = () => (slowApp ??= startChatApp('slow', { CHAT_SCRIPTED_TOKEN_DELAY_MS: '20' }));
afterAll(async () => {
  await Promise.all([app?.stop(), slowApp?.then((slow) => slow.stop())]);
});

const thread = () => `t-${randomUUID()}`;
/** For a test that starts app processes of its own: each takes tens of seconds on a loaded 2-core machine. */
const OWN_PROCESSES_MS = 240_000;
const isRootTerminal = (e: ProtocolEvent) =>
  e.method === 'lifecycle' &&
  e.params.namespace.length === 0 &&
  ['completed', 'failed', 'interrupted'].includes(e.params.data.event);

/** Runs one turn with a subscription to everything opened first; every event of the run. */
async function runAndCollect(
  threadId: string,
  content: string,
  caller: ChatCaller = app,
): Promise<{ runId: string; events: ProtocolEvent[] }> {
  const stream = openStream(caller, threadId, { channels: ALL_CHANNELS });
  await stream.response;
  const runId = await startRun(caller, threadId, content);
  return { runId, events: await stream.events };
}

describe('API keys and workspaces', () => {
  it('every /api route needs a key: none is 401 MISSING_API_KEY, a wrong one 401 INVALID_API_KEY; the page and health are public', async () => {
    const t = thread();
    for (const [method, path, body] of [
      ['GET', '/api/threads'],
      ['GET', `/api/threads/${t}/state`],
      ['POST', `/api/threads/${t}/state`, { values: { messages: [] } }],
      ['POST', `/api/threads/${t}/history`, {}],
      ['POST', `/api/threads/${t}/stream`, { channels: ['messages'] }],
      [
        'POST',
        `/api/threads/${t}/commands`,
        { id: 1, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage('x') } },
      ],
      ['DELETE', `/api/threads/${t}`],
      ['GET', '/api/workspaces'],
    ] as const) {
      expect(
        await chatCall({ url: app.url, headers: {} }, method, path, body),
        `${method} ${path} without a key`,
      ).toEqual({ status: 401, body: { error: 'MISSING_API_KEY', detail: expect.stringContaining('X-Api-Key') } });
      expect(
        await chatCall(as(app, { apiKey: `lsk_not_a_key_${randomBytes(16).toString('hex')}` }), method, path, body),
        `${method} ${path} with a wrong key`,
      ).toEqual({
        status: 401,
        body: { error: 'INVALID_API_KEY', detail: expect.any(String) },
      });
    }
    // Nothing was made by any of them.
    expect((await chatCall(app, 'GET', `/api/threads/${t}/state`)).status).toBe(404);
    expect((await fetch(`${app.url}/`)).status).toBe(200);
    expect((await fetch(`${app.url}/ok`)).status).toBe(200);
  });

  it('a key of several workspaces lists them, and must name the one it acts in (X-Tenant-Id)', async () => {
    const [one, two] = await createWorkspaces(2, { shareKey: true });
    const listed = await chatCall(as(app, one!), 'GET', '/api/workspaces');
    expect(listed.status).toBe(200);
    expect(listed.body.map((w: { id: string }) => w.id).sort()).toEqual([one!.id, two!.id].sort());
    expect(await chatCall(as(app, one!), 'GET', '/api/threads')).toEqual({
      status: 400,
      body: { error: 'TENANT_ID_REQUIRED', detail: expect.stringContaining('X-Tenant-Id') },
    });
    const [other] = await createWorkspaces(1);
    expect(
      await chatCall(
        { url: app.url, headers: { 'x-api-key': one!.apiKey, 'x-tenant-id': other!.id } },
        'GET',
        '/api/threads',
      ),
    ).toEqual({
      status: 403,
      body: { error: 'WORKSPACE_FORBIDDEN', detail: expect.stringContaining(other!.id) },
    });
    // Acting in each, the same key keeps the two workspaces' threads apart.
    const t = thread();
    await runAndCollect(t, 'What is 2 + 2?', as(app, one!, true));
    expect((await chatCall(as(app, one!, true), 'GET', '/api/threads')).body.map((x: { id: string }) => x.id)).toEqual([
      t,
    ]);
    expect((await chatCall(as(app, two!, true), 'GET', '/api/threads')).body).toEqual([]);
    expect((await chatCall(as(app, two!, true), 'GET', `/api/threads/${t}/state`)).status).toBe(404);
  });

  it("workspace B neither sees, reads, streams, deletes nor can detect workspace A's threads", async () => {
    const [wa, wb] = await createWorkspaces(2);
    const [a, b] = [as(app, wa!), as(app, wb!)];
    const t = thread();
    const { events: aEvents } = await runAndCollect(t, 'What is 6 * 7?', a!);
    const aState = (await chatCall(a!, 'GET', `/api/threads/${t}/state`)).body;
    expect(aState.values.messages.length).toBeGreaterThan(1);

    // A thread of A's answers B exactly as a thread that never was: the same 404, naming only the id B sent.
    const never = thread();
    const sameAsUnknown = async (method: string, path: (id: string) => string, body?: unknown) => {
      const theirs = await chatCall(b!, method, path(t), body);
      const unknown = await chatCall(b!, method, path(never), body);
      expect(theirs.status, `${method} ${path(t)}`).toBe(404);
      expect({ ...theirs, body: { ...theirs.body, detail: theirs.body.detail.replaceAll(t, '<id>') } }).toEqual({
        ...unknown,
        body: { ...unknown.body, detail: unknown.body.detail.replaceAll(never, '<id>') },
      });
      // (the id itself is random hex and may hold "42", so it is taken out first)
      expect(JSON.stringify(theirs.body).replaceAll(t, '<id>')).not.toMatch(/6 \* 7|42/);
    };
    await sameAsUnknown('GET', (id) => `/api/threads/${id}/state`);
    await sameAsUnknown('POST', (id) => `/api/threads/${id}/history`, {});
    await sameAsUnknown('DELETE', (id) => `/api/threads/${id}`);
    expect((await chatCall(b!, 'GET', '/api/threads')).body).toEqual([]);
    // Subscribed to A's thread id, B gets nothing of A's finished run (A's own subscription replays it).
    expect(await eventsWithin(b!, t, { channels: ALL_CHANNELS }, 1000)).toEqual([]);
    expect((await eventsWithin(a!, t, { channels: ALL_CHANNELS }, 1000)).map((e) => e.event_id)).toEqual(
      aEvents.map((e) => e.event_id),
    );

    // The same id in B is B's own thread: its run sees none of A's messages, and A's is untouched.
    await runAndCollect(t, 'hello', b!);
    const bState = (await chatCall(b!, 'GET', `/api/threads/${t}/state`)).body;
    expect(
      bState.values.messages
        .filter((m: { type: string }) => m.type === 'human')
        .map((m: { content: string }) => m.content),
    ).toEqual(['hello']);
    expect((await chatCall(a!, 'GET', `/api/threads/${t}/state`)).body.values.messages).toEqual(aState.values.messages);
    expect((await chatCall(a!, 'GET', '/api/threads')).body).toEqual([
      { id: t, title: 'What is 6 * 7?', updatedAt: expect.any(String) },
    ]);
    expect((await chatCall(b!, 'GET', '/api/threads')).body).toEqual([
      { id: t, title: 'hello', updatedAt: expect.any(String) },
    ]);
    // B deleting its thread leaves A's.
    expect((await chatCall(b!, 'DELETE', `/api/threads/${t}`)).status).toBe(204);
    expect((await chatCall(a!, 'GET', `/api/threads/${t}/state`)).body.values.messages).toEqual(aState.values.messages);
    // No answer names the workspace the thread is stored under.
    const aHistory = (await chatCall(a!, 'POST', `/api/threads/${t}/history`, { limit: 100 })).body;
    for (const answer of [aState, aHistory, aEvents]) expect(JSON.stringify(answer)).not.toContain(wa!.id);
  });

  it(
    'where the API keys cannot be read (no Kafka), the app says so and what to do, and stops',
    async () => {
      const child = startService(
        'examples/chat-app/main.ts',
        {
          CHAT_APP_PORT: String(await freePort()),
          KAFKA_BROKERS: `127.0.0.1:${await freePort()}`,
          LOG_LEVEL: 'silent',
        },
        'chat-app-no-kafka',
      );
      let stderr = '';
      child.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise((resolve) => child.child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(
        /^the example chat app cannot start: the API keys could not be read from Kafka \(KAFKA_BROKERS=127\.0\.0\.1:\d+\): .*npm run infra:up.*CHAT_APP_AUTH=none/,
      );
    },
    OWN_PROCESSES_MS,
  );

  it(
    'with CHAT_APP_AUTH=none (loopback only) no key is needed: everyone acts in the default workspace',
    async () => {
      const open = await startChatApp('no-keys', { CHAT_APP_AUTH: 'none' });
      try {
        const t = thread();
        await runAndCollect(t, 'hello', open);
        expect((await chatCall(open, 'GET', '/api/threads')).body.map((x: { id: string }) => x.id)).toEqual([t]);
        // The routes do not ask for a key in its document; GET /api/workspaces is not served.
        const doc = (await (await fetch(`${open.url}/docs/json`)).json()) as {
          paths: Record<string, Record<string, { security?: unknown[] }>>;
        };
        expect(doc.paths['/api/threads']!.get!.security ?? []).toEqual([]);
        expect(doc.paths['/api/workspaces']).toBeUndefined();
      } finally {
        await open.stop();
      }
    },
    OWN_PROCESSES_MS,
  );
});

describe('commands', () => {
  it('run.start answers success with the run id', async () => {
    const { status, body } = await sendCommand(app, thread(), {
      id: 7,
      method: 'run.start',
      params: { assistant_id: 'deep_agent', input: userMessage('hello') },
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      type: 'success',
      id: 7,
      result: { run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      // the newest event seq of the thread when the command was taken (none yet)
      meta: { thread_id: expect.any(String), applied_through_seq: 0 },
    });
  });

  it('refuses what it cannot do with the protocol error shape and a message that says why', async () => {
    const t = thread();
    const unknownMethod = await sendCommand(app, t, { id: 2, method: 'agent.getTree', params: {} });
    expect(unknownMethod).toEqual({
      status: 400,
      body: { type: 'error', id: 2, error: 'unknown_command', message: expect.stringContaining('agent.getTree') },
    });
    const unknownAssistant = await sendCommand(app, t, {
      id: 3,
      method: 'run.start',
      params: { assistant_id: 'nobody', input: userMessage('x') },
    });
    expect(unknownAssistant).toEqual({
      status: 400,
      body: {
        type: 'error',
        id: 3,
        error: 'invalid_argument',
        message: expect.stringContaining('unknown assistant "nobody"'),
      },
    });
    for (const malformed of [
      [1],
      { method: 'run.start' },
      { id: 'one', method: 'run.start' },
      { id: 4, method: 'run.start', params: 'x' },
      { id: 5, method: 'run.start', params: { assistant_id: 'deep_agent', input: 'hi' } },
      { id: 6, method: 'run.start', params: { assistant_id: 'deep_agent', nonsense: true } },
    ]) {
      const answer = await sendCommand(app, t, malformed);
      expect(answer.status, JSON.stringify(malformed)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'error', error: 'invalid_argument', message: expect.any(String) });
    }
    // An id that is not an integer is not echoed (it was a 500: the answer's `id` must be an integer or null). Found by the fuzz run.
    expect(await sendCommand(app, t, { id: 2.5890419884777833e-42, method: 'run.start', params: {} })).toEqual({
      status: 400,
      body: {
        type: 'error',
        id: null,
        error: 'invalid_argument',
        message: expect.stringContaining('"id" must be an integer'),
      },
    });
    // A body that is not JSON is not a command: the platform's error shape, as on every route.
    const notJson = await fetch(`${app.url}/api/threads/${t}/commands`, {
      method: 'POST',
      headers: { ...app.headers, 'content-type': 'application/json' },
      body: '{"id":',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: 'BAD_REQUEST', detail: expect.stringMatching(/JSON/) });
    // Nothing was started by any of these: the thread has no state.
    expect((await chatCall(app, 'GET', `/api/threads/${t}/state`)).status).toBe(404);
  });

  it(
    'refuses a second run while the thread has one in progress, naming it',
    async () => {
      const slow = await slowStreaming();
      const t = thread();
      const runId = await startRun(slow, t, BOTH);
      const second = await sendCommand(slow, t, {
        id: 9,
        method: 'run.start',
        params: { assistant_id: 'deep_agent', input: userMessage('again') },
      });
      expect(second).toEqual({
        status: 409,
        body: { type: 'error', id: 9, error: 'invalid_argument', message: expect.stringContaining(runId) },
      });
    },
    OWN_PROCESSES_MS,
  );

  it("a thread id that is not one is refused before anything runs, on every route, in the platform's error shape", async () => {
    const bad = encodeURIComponent('bad id!');
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/threads/${bad}/state`],
      ['POST', `/api/threads/${bad}/state`, { values: { messages: [] } }],
      ['POST', `/api/threads/${bad}/history`, {}],
      ['POST', `/api/threads/${bad}/stream`, { channels: ['messages'] }],
      ['DELETE', `/api/threads/${bad}`],
      [
        'POST',
        `/api/threads/${bad}/commands`,
        { id: 1, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage('x') } },
      ],
    ];
    for (const [method, path, body] of calls) {
      const res = await chatCall(app, method, path, body);
      expect(res, `${method} ${path}`).toEqual({
        status: 422,
        body: { error: 'VALIDATION_ERROR', detail: expect.stringMatching(/threadId/) },
      });
    }
    expect((await chatCall(app, 'GET', '/api/threads')).body.map((t: { id: string }) => t.id)).not.toContain('bad id!');
  });
});

describe('the stream', () => {
  it('speaks SSE with the headers of the reference, frames with event, id and data', async () => {
    const t = thread();
    const stream = openStream(app, t, { channels: ['lifecycle'] });
    const res = await stream.response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    await startRun(app, t, 'hello');
    const events = await stream.events;
    expect(await stream.ids).toEqual(events.map((e) => e.event_id));
    expect(events.at(-1)).toMatchObject({
      method: 'lifecycle',
      params: { namespace: [], data: { event: 'completed' } },
    });
    // seq increases, event ids are unique.
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  });

  it('a coordinator turn: reasoning, task delegations on the tools channel, subagents under their own namespaces, a streamed answer, lifecycle', async () => {
    const { events } = await runAndCollect(thread(), BOTH);
    const root = events.filter(
      (e) => e.params.namespace.length === 0 || e.params.namespace[0]!.startsWith('model_request:'),
    );
    // Lifecycle of the root run.
    expect(events.find((e) => e.method === 'lifecycle' && e.params.namespace.length === 0)?.params.data.event).toBe(
      'running',
    );
    expect(events.filter(isRootTerminal).map((e) => e.params.data.event)).toEqual(['completed']);
    // Reasoning streamed as a reasoning content block, then deltas.
    const reasoning = root.filter(
      (e) =>
        e.method === 'messages' &&
        e.params.data.event === 'content-block-start' &&
        e.params.data.content.type === 'reasoning',
    );
    expect(reasoning.length).toBeGreaterThanOrEqual(2); // the plan and the summary
    expect(root.some((e) => e.method === 'messages' && e.params.data.delta?.type === 'reasoning-delta')).toBe(true);
    // Two task delegations, each started on the tools channel with its subagent, each finished.
    const taskStarts = events.filter(
      (e) => e.method === 'tools' && e.params.data.event === 'tool-started' && e.params.data.tool_name === 'task',
    );
    const inputs = taskStarts.map((e) =>
      typeof e.params.data.input === 'string' ? JSON.parse(e.params.data.input) : e.params.data.input,
    );
    expect(inputs.map((i) => i.subagent_type).sort()).toEqual(['math-whiz', 'researcher']);
    for (const start of taskStarts)
      expect(
        events.some(
          (e) =>
            e.method === 'tools' &&
            e.params.data.event === 'tool-finished' &&
            e.params.data.tool_call_id === start.params.data.tool_call_id,
        ),
      ).toBe(true);
    // Each subagent streams under its own tools:<id> namespace: its own messages and its own tool.
    const subagentNamespaces = [...new Set(taskStarts.map((e) => e.params.namespace[0]!))];
    expect(subagentNamespaces).toHaveLength(2);
    for (const ns of subagentNamespaces) expect(ns).toMatch(/^tools:/);
    const inside = (ns: string) => events.filter((e) => e.params.namespace[0] === ns && e.params.namespace.length > 1);
    const toolsUsed = subagentNamespaces.map((ns) =>
      inside(ns)
        .filter((e) => e.method === 'tools' && e.params.data.event === 'tool-started')
        .map((e) => e.params.data.tool_name),
    );
    expect(toolsUsed.flat().sort()).toEqual(['calculator', 'search_web']);
    const mathNs = subagentNamespaces[toolsUsed.findIndex((names) => names.includes('calculator'))]!;
    expect(streamedText(inside(mathNs))).toBe('(17 + 25) * 3 = 126');
    // The coordinator's answer streams token by token and combines both results.
    const answerDeltas = root.filter((e) => e.method === 'messages' && e.params.data.delta?.type === 'text-delta');
    expect(answerDeltas.length).toBeGreaterThan(5);
    const answer = streamedText(root);
    expect(answer).toContain('(17 + 25) * 3 = 126');
    expect(answer).toContain('LangGraph runs agents as graphs');
    // values are plain role-keyed messages, not LangChain's serialised classes.
    const lastValues = events.filter((e) => e.method === 'values' && e.params.namespace.length === 0).at(-1)!;
    expect(lastValues.params.data.messages[0]).toMatchObject({ type: 'human', content: BOTH });
    expect(JSON.stringify(lastValues)).not.toContain('"lc":1');
  });

  it('filters by channel, custom:<name>, namespace prefix (segment by segment) and depth', async () => {
    const t = thread();
    const subscribe = (subscription: object) => openStream(app, t, subscription);
    const streams = {
      messages: subscribe({ channels: ['messages'] }),
      searchProgress: subscribe({ channels: ['custom:search_progress'] }),
      custom: subscribe({ channels: ['custom'] }),
      otherCustom: subscribe({ channels: ['custom:nothing_writes_this', 'lifecycle'] }),
      subagents: subscribe({ channels: ['tools'], namespaces: [['tools']] }),
      subagentTop: subscribe({ channels: ['lifecycle'], namespaces: [['tools']], depth: 0 }),
      root: subscribe({ channels: ['lifecycle', 'tools'], namespaces: [[]], depth: 0 }),
    };
    await Promise.all(Object.values(streams).map((s) => s.response));
    await startRun(app, t, BOTH);
    const got = Object.fromEntries(
      await Promise.all(Object.entries(streams).map(async ([k, s]) => [k, await s.events] as const)),
    ) as Record<keyof typeof streams, ProtocolEvent[]>;

    expect(got.messages.length).toBeGreaterThan(20);
    expect(new Set(got.messages.map((e) => e.method))).toEqual(new Set(['messages']));
    expect(got.searchProgress.map((e) => e.params.data)).toEqual([
      { name: 'search_progress', payload: { query: expect.any(String), results: expect.any(Number) } },
    ]);
    expect(got.custom).toEqual(got.searchProgress); // the only custom events are search_progress
    expect(got.otherCustom.every((e) => e.method === 'lifecycle')).toBe(true);
    // "tools" matches "tools:<id>", the coordinator's tool node: its task calls and, below them, the subagents' own tools.
    expect(
      got.subagents
        .filter((e) => e.params.data.event === 'tool-started')
        .map((e) => e.params.data.tool_name)
        .sort(),
    ).toEqual(['calculator', 'search_web', 'task', 'task']);
    expect(got.subagents.every((e) => e.params.namespace[0]!.startsWith('tools:'))).toBe(true);
    // depth 0 below "tools": the subagents' own lifecycle, not their model and tool nodes'.
    expect(got.subagentTop.length).toBeGreaterThanOrEqual(4);
    expect(got.subagentTop.every((e) => e.params.namespace.length === 1)).toBe(true);
    // The root at depth 0: its lifecycle only (task calls are tools events one level down).
    expect(got.root.every((e) => e.params.namespace.length === 0)).toBe(true);
    expect(got.root.map((e) => e.params.data.event)).toEqual(['running', 'completed']);
  });

  it('replays the buffered events first, to a subscriber that comes after the run, and `since` skips what a client has', async () => {
    const t = thread();
    const { events: live } = await runAndCollect(t, BOTH);
    // The run has finished: a new subscription replays it from the log…
    const late = openStream(app, t, { channels: ALL_CHANNELS });
    await waitFor('the replay', async () => (await late.response).ok);
    // …and then waits for the next run (which ends it).
    await new Promise((r) => setTimeout(r, 200));
    await startRun(app, t, 'hello');
    const replayed = await late.events;
    expect(replayed.slice(0, live.length)).toEqual(live);
    expect(replayed.length).toBeGreaterThan(live.length);
    expect(replayed.filter(isRootTerminal)).toHaveLength(2);

    // A client that reconnects with the seq of the last event it had gets exactly the rest of the run
    // (the thread's current run is the second one now)
    const second = replayed.slice(live.length);
    const cut = Math.floor(second.length / 2);
    const resumed = await eventsWithin(app, t, { channels: ALL_CHANNELS, since: second[cut]!.seq }, 1000);
    expect(resumed).toEqual(second.slice(cut + 1));
  });

  it(
    'a reconnecting client resumes mid-run with since and misses nothing',
    async () => {
      const slow = await slowStreaming();
      const t = thread();
      const subscription = { channels: ['messages', 'tools', 'lifecycle'] };
      const full = openStream(slow, t, subscription);
      const dropped = new AbortController();
      const first = await fetch(`${slow.url}/api/threads/${t}/stream`, {
        method: 'POST',
        headers: { ...slow.headers, 'content-type': 'application/json' },
        body: JSON.stringify(subscription),
        signal: dropped.signal,
      });
      await full.response;
      await startRun(slow, t, BOTH);
      // Read part of the run, then drop the connection.
      const reader = first.body!.getReader();
      let text = '';
      while ((text.match(/^data: .*\n/gm) ?? []).length < 30)
        text += new TextDecoder().decode((await reader.read()).value);
      dropped.abort();
      text = text.slice(0, text.lastIndexOf('\n\n') + 2); // whole frames only
      const seen = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as ProtocolEvent);
      const resumed = openStream(slow, t, { channels: ['messages', 'tools', 'lifecycle'], since: seen.at(-1)!.seq });
      const all = await full.events;
      const rest = await resumed.events;
      expect([...seen, ...rest].map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));
      expect(rest.length).toBeGreaterThan(0);
    },
    OWN_PROCESSES_MS,
  );

  it('an unknown channel or a malformed subscription is a 422 that names the problem', async () => {
    const t = thread();
    const bad = (body: unknown) => chatCall(app, 'POST', `/api/threads/${t}/stream`, body);
    // the channels a subscription may name are in the document (a pattern), and the answer names them
    expect(await bad({ channels: ['messages', 'telepathy'] })).toEqual({
      status: 422,
      body: {
        error: 'VALIDATION_ERROR',
        detail: expect.stringMatching(/^body\/channels\/1 must match pattern .*values\|updates\|messages.*custom:/),
      },
    });
    for (const malformed of [
      {},
      { channels: [] },
      { channels: ['messages'], depth: -1 },
      { channels: ['messages'], namespaces: 'tools' },
    ])
      expect(await bad(malformed), JSON.stringify(malformed)).toEqual({
        status: 422,
        body: { error: 'VALIDATION_ERROR', detail: expect.any(String) },
      });
  });

  it('a run that fails ends with a root lifecycle "failed" that says why', async () => {
    const t = thread();
    const stream = openStream(app, t, { channels: ['lifecycle'], namespaces: [[]], depth: 0 });
    await stream.response;
    const { status } = await sendCommand(app, t, {
      id: 1,
      method: 'run.start',
      params: { assistant_id: 'deep_agent', input: userMessage(BOTH), config: { recursion_limit: 2 } },
    });
    expect(status).toBe(200);
    const events = await stream.events;
    expect(events.at(-1)?.params.data).toMatchObject({ event: 'failed' });
    expect(JSON.stringify(events.at(-1)?.params.data)).toMatch(/recursion/i);
  });
});

describe('the run log is bounded', () => {
  it(
    'keeps at most CHAT_RUN_BUFFER_EVENTS events of a run: a late subscriber gets the newest, a live one all',
    async () => {
      const small = await startChatApp('bounded', { CHAT_RUN_BUFFER_EVENTS: '50' });
      try {
        const t = thread();
        const { events: live } = await runAndCollect(t, BOTH, small);
        expect(live.length).toBeGreaterThan(100);
        const replayed = await eventsWithin(small, t, { channels: ALL_CHANNELS }, 1000);
        // The newest events of the run, at most 50 (the log trims a tenth of its bound at a time), ending with the run's end.
        expect(replayed.length).toBeGreaterThanOrEqual(45);
        expect(replayed.length).toBeLessThanOrEqual(50);
        expect(replayed).toEqual(live.slice(live.length - replayed.length));
        expect(isRootTerminal(replayed.at(-1)!)).toBe(true);
      } finally {
        await small.stop();
      }
    },
    OWN_PROCESSES_MS,
  );
});

describe('threads and state', () => {
  it('state is 404 before any checkpoint, bootstrapped by POST, updated, refused with 422 when invalid', async () => {
    const t = thread();
    expect(await chatCall(app, 'GET', `/api/threads/${t}/state`)).toEqual({
      status: 404,
      body: { error: 'NOT_FOUND', detail: expect.stringContaining(t) },
    });
    expect(await chatCall(app, 'POST', `/api/threads/${t}/history`, {})).toEqual({
      status: 404,
      body: { error: 'NOT_FOUND', detail: expect.stringContaining(t) },
    });

    const post = (body: unknown) => chatCall(app, 'POST', `/api/threads/${t}/state`, body);
    const boot = await post({ values: { messages: [] } });
    expect(boot.status).toBe(200);
    expect(boot.body).toMatchObject({
      values: { messages: [] },
      checkpoint: { thread_id: t, checkpoint_id: expect.any(String) },
    });
    expect((await chatCall(app, 'GET', `/api/threads/${t}/state`)).body).toMatchObject({ values: { messages: [] } });

    // Refused by the route's schema, which names the state's keys: a key the state does not have,
    // messages not a list.
    for (const [invalid, code] of [
      [{ values: { no_such_key: 1 } }, 'VALIDATION_ERROR'],
      [{ values: { messages: 'hi' } }, 'VALIDATION_ERROR'],
      [{ values: [] }, 'VALIDATION_ERROR'],
      [{ as_node: 5 }, 'VALIDATION_ERROR'],
    ] as const)
      expect(await post(invalid), JSON.stringify(invalid)).toEqual({
        status: 422,
        body: { error: code, detail: expect.any(String) },
      });
    // An update adds a message with the reducer.
    const updated = await post({ values: { messages: [{ type: 'human', content: 'added by hand', id: 'm1' }] } });
    expect(updated.status).toBe(200);
    expect(updated.body.values.messages).toEqual([
      expect.objectContaining({ type: 'human', content: 'added by hand', id: 'm1' }),
    ]);
  });

  it('a run leaves its messages in state; history pages through checkpoints newest first', async () => {
    const t = thread();
    await runAndCollect(t, 'What is 6 * 7?');
    const state = (await chatCall(app, 'GET', `/api/threads/${t}/state`)).body;
    const types = state.values.messages.map((m: { type: string }) => m.type);
    expect(types[0]).toBe('human');
    expect(types).toContain('tool');
    expect(types.at(-1)).toBe('ai');
    const history = (body: unknown) =>
      chatCall(app, 'POST', `/api/threads/${t}/history`, body) as Promise<{ status: number; body: any[] }>;
    const first = await history({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(2);
    expect(first.body[0].checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    const next = await history({ limit: 2, before: first.body[1].checkpoint.checkpoint_id });
    expect(next.body).toHaveLength(2);
    expect(next.body[0].checkpoint.checkpoint_id).toBe(first.body[1].parent_checkpoint.checkpoint_id);
    const byObject = await history({ limit: 2, before: first.body[1].checkpoint });
    expect(byObject.body.map((s) => s.checkpoint.checkpoint_id)).toEqual(
      next.body.map((s) => s.checkpoint.checkpoint_id),
    );
    expect((await history({ limit: 0 })).status).toBe(422);
  });

  it('lists threads newest first with titles, and DELETE removes one: state, checkpoints and list entry', async () => {
    const older = thread();
    const newer = thread();
    await runAndCollect(older, 'hello there, first thread');
    await runAndCollect(newer, 'What is 2 + 2?');
    const list = (await chatCall(app, 'GET', '/api/threads')).body as {
      id: string;
      title: string;
      updatedAt: string;
    }[];
    const mine = list.filter((x) => x.id === older || x.id === newer);
    expect(mine).toEqual([
      { id: newer, title: 'What is 2 + 2?', updatedAt: expect.any(String) },
      { id: older, title: 'hello there, first thread', updatedAt: expect.any(String) },
    ]);
    expect(await chatCall(app, 'DELETE', `/api/threads/${older}`)).toEqual({ status: 204, body: null });
    expect((await chatCall(app, 'GET', `/api/threads/${older}/state`)).status).toBe(404);
    const after = (await chatCall(app, 'GET', '/api/threads')).body as { id: string }[];
    expect(after.map((x) => x.id)).not.toContain(older);
    expect(after.map((x) => x.id)).toContain(newer);
    // Gone: deleting it again finds nothing.
    expect(await chatCall(app, 'DELETE', `/api/threads/${older}`)).toEqual({
      status: 404,
      body: { error: 'NOT_FOUND', detail: expect.stringContaining(older) },
    });
  });

  it('a DELETE without a body naming Content-Type: application/json (what generic clients send) deletes', async () => {
    const t = thread();
    expect((await chatCall(app, 'POST', `/api/threads/${t}/state`, { values: { messages: [] } })).status).toBe(200);
    const res = await fetch(`${app.url}/api/threads/${t}`, {
      method: 'DELETE',
      headers: { ...app.headers, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(204);
    expect((await chatCall(app, 'GET', `/api/threads/${t}/state`)).status).toBe(404);
  });

  it('DELETE of a thread that never was is a 404, and makes nothing', async () => {
    const t = thread();
    expect(await chatCall(app, 'DELETE', `/api/threads/${t}`)).toEqual({
      status: 404,
      body: { error: 'NOT_FOUND', detail: expect.stringContaining(t) },
    });
    expect((await chatCall(app, 'GET', `/api/threads/${t}/state`)).status).toBe(404);
  });

  it(
    'deleting a thread mid-run cancels the run and ends its streams',
    async () => {
      const slow = await slowStreaming();
      const t = thread();
      const stream = openStream(slow, t, { channels: ['lifecycle', 'messages'] });
      await stream.response;
      await startRun(slow, t, BOTH);
      await new Promise((r) => setTimeout(r, 300));
      expect((await chatCall(slow, 'DELETE', `/api/threads/${t}`)).status).toBe(204);
      const events = await stream.events;
      expect(events.filter(isRootTerminal).map((e) => e.params.data.event)).not.toContain('completed');
      expect((await chatCall(slow, 'GET', `/api/threads/${t}/state`)).status).toBe(404);
    },
    OWN_PROCESSES_MS,
  );
});

describe('durability', () => {
  it(
    'with CHAT_CHECKPOINTER=postgres a thread survives a restart of the app and goes on',
    async () => {
      const db = await scratchPostgres('chatapp');
      const env = { CHAT_CHECKPOINTER: 'postgres', POSTGRES_URL: db.url };
      let durable = await startChatApp('durable-1', env);
      try {
        const t = thread();
        await runAndCollect(t, 'What is 6 * 7?', durable);
        const before = (await chatCall(durable, 'GET', `/api/threads/${t}/state`)).body;
        const port = durable.port;
        await durable.stop();
        durable = await startChatApp('durable-2', env, port);
        const after = (await chatCall(durable, 'GET', `/api/threads/${t}/state`)).body;
        expect(after.values.messages).toEqual(before.values.messages);
        expect(
          ((await chatCall(durable, 'GET', '/api/threads')).body as { id: string; title: string }[]).find(
            (x) => x.id === t,
          ),
        ).toMatchObject({ title: 'What is 6 * 7?' });
        // The next turn continues the same conversation.
        await runAndCollect(t, 'What is 2 + 3?', durable);
        const next = (await chatCall(durable, 'GET', `/api/threads/${t}/state`)).body;
        expect(
          next.values.messages
            .filter((m: { type: string }) => m.type === 'human')
            .map((m: { content: string }) => m.content),
        ).toEqual(['What is 6 * 7?', 'What is 2 + 3?']);
      } finally {
        await durable.stop();
        await db.drop();
      }
    },
    OWN_PROCESSES_MS,
  );

  it(
    'threads kept before workspaces (stored without one) are moved to the default workspace at start',
    async () => {
      const db = await scratchPostgres('chatlegacy');
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      const legacy = thread();
      try {
        // What a release without workspaces stored: the thread id as the client chose it.
        await pool.query('CREATE SCHEMA IF NOT EXISTS chat_app');
        const saver = new PostgresSaver(pool, undefined, { schema: 'chat_app' });
        await saver.setup();
        await saver.put(
          { configurable: { thread_id: legacy, checkpoint_ns: '' } },
          emptyCheckpoint(),
          { source: 'input', step: -1, parents: {} },
          {},
        );
        const upgraded = await startChatApp('legacy', { CHAT_CHECKPOINTER: 'postgres', POSTGRES_URL: db.url });
        try {
          // The bootstrap key acts in the default workspace: the thread is there, and in no other workspace.
          expect((await chatCall(upgraded, 'GET', `/api/threads/${legacy}/state`)).status).toBe(200);
          expect((await chatCall(upgraded, 'GET', '/api/threads')).body.map((x: { id: string }) => x.id)).toEqual([
            legacy,
          ]);
          const [other] = await createWorkspaces(1);
          expect((await chatCall(as(upgraded, other!), 'GET', `/api/threads/${legacy}/state`)).status).toBe(404);
        } finally {
          await upgraded.stop();
        }
      } finally {
        await pool.end();
        await db.drop();
      }
    },
    OWN_PROCESSES_MS,
  );

  it(
    'with the in-memory default, a restart forgets every thread (as documented)',
    async () => {
      let volatile = await startChatApp('volatile-1');
      try {
        const t = thread();
        await runAndCollect(t, 'hello', volatile);
        expect((await chatCall(volatile, 'GET', `/api/threads/${t}/state`)).status).toBe(200);
        const port = volatile.port;
        await volatile.stop();
        volatile = await startChatApp('volatile-2', {}, port);
        expect((await chatCall(volatile, 'GET', `/api/threads/${t}/state`)).status).toBe(404);
      } finally {
        await volatile.stop();
      }
    },
    OWN_PROCESSES_MS,
  );
});

describe('tracing', () => {
  it(
    "traces every turn with the caller's key into the caller's workspace, one tracing thread per chat thread, the root run being the protocol run",
    async () => {
      const workspace = (await createWorkspaces(1))[0]!;
      const [shared, sibling] = await createWorkspaces(2, { shareKey: true });
      const project = `chat-app-${randomBytes(4).toString('hex')}`;
      // No LANGSMITH_API_KEY: the app traces with its callers' keys.
      const traced = await startChatApp('traced', {
        LANGSMITH_TRACING: 'true',
        LANGSMITH_ENDPOINT: tracingUrl(),
        LANGSMITH_PROJECT: project,
      });
      try {
        const t = thread();
        const mine = as(traced, workspace);
        const first = await runAndCollect(t, BOTH, mine);
        const second = await runAndCollect(t, 'hello', mine);
        // Another workspace's turn, by a key of several workspaces (X-Tenant-Id), on a thread of the same id.
        const theirs = await runAndCollect(t, 'What is 2 + 2?', as(traced, shared!, true));
        const projectId = projectIdForName(workspace.id, project);
        const traces = await waitFor(
          'two traces in the chat thread',
          async () => {
            const res = await api(
              `/api/v2/threads/${encodeURIComponent(t)}/traces?project_id=${projectId}&selects=TRACE_ID&selects=NAME`,
              { apiKey: workspace.apiKey },
            );
            return res.status === 200 && res.body.items.length >= 2
              ? (res.body.items as { trace_id: string; name: string }[])
              : null;
          },
          60_000,
          250,
        );
        expect(traces.map((x) => x.trace_id).sort()).toEqual([first.runId, second.runId].sort());
        const root = (await api(`/runs/${first.runId}`, { apiKey: workspace.apiKey })).body;
        expect(root).toMatchObject({
          name: 'deep_agent',
          extra: { metadata: expect.objectContaining({ thread_id: t }) },
        });
        // The subagents' work is in the same trace.
        const tree = await waitFor(
          'the subagent runs in the trace',
          async () => {
            const res = await api('/runs/query', {
              apiKey: workspace.apiKey,
              method: 'POST',
              json: { trace: first.runId, select: ['name'], limit: 100 },
            });
            const names = (res.body.runs ?? []).map((r: { name: string }) => r.name);
            return names.includes('calculator') && names.includes('search_web') ? names : null;
          },
          60_000,
          250,
        );
        expect(tree).toContain('task');
        // The other workspace's turn is in its own project, and in no other workspace.
        const theirTraces = await waitFor(
          "the other workspace's trace",
          async () => {
            const res = await api(
              `/api/v2/threads/${encodeURIComponent(t)}/traces?project_id=${projectIdForName(shared!.id, project)}&selects=TRACE_ID`,
              { apiKey: shared!.apiKey, headers: { 'x-tenant-id': shared!.id } },
            );
            return res.status === 200 && res.body.items.length >= 1 ? (res.body.items as { trace_id: string }[]) : null;
          },
          60_000,
          250,
        );
        expect(theirTraces.map((x) => x.trace_id)).toEqual([theirs.runId]);
        expect((await api(`/runs/${theirs.runId}`, { apiKey: workspace.apiKey })).status).toBe(404);
        expect(
          (await api(`/runs/${first.runId}`, { apiKey: shared!.apiKey, headers: { 'x-tenant-id': shared!.id } }))
            .status,
        ).toBe(404);
        expect(
          (await api(`/runs/${theirs.runId}`, { apiKey: sibling!.apiKey, headers: { 'x-tenant-id': sibling!.id } }))
            .status,
        ).toBe(404);
      } finally {
        await traced.stop();
      }
    },
    OWN_PROCESSES_MS,
  );
});

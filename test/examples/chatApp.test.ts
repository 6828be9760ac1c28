// The example chat app (examples/chat-app) on the agent streaming protocol, over plain HTTP and
// SSE, as a process of its own: every endpoint and its errors, the stream's replay, filters and
// `since`, subagents under their own namespaces, reasoning, the bounded run log, durability
// across a restart with PostgreSQL checkpoints, and tracing into the tracing API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { eventsWithin, openStream, sendCommand, startChatApp, startRun, streamedText, userMessage, type ChatAppProcess, type ProtocolEvent } from '../support/chatApp.ts';
import { tracingEnv } from '../support/exampleA2aAgent.ts';
import { scratchPostgres } from '../support/scratchPostgres.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { api, createWorkspaces, tracingUrl } from '../support/tracingClient.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';

const BOTH = 'Research LangGraph streaming and calculate (17 + 25) * 3';
const ALL_CHANNELS = ['values', 'updates', 'messages', 'tools', 'lifecycle', 'input', 'checkpoints', 'tasks', 'custom'];

let app: ChatAppProcess;
beforeAll(async () => {
  app = await startChatApp('protocol');
});
afterAll(() => app?.stop());

const thread = () => `t-${randomUUID()}`;
const isRootTerminal = (e: ProtocolEvent) => e.method === 'lifecycle' && e.params.namespace.length === 0 && ['completed', 'failed', 'interrupted'].includes(e.params.data.event);

/** Runs one turn with a subscription to everything opened first; every event of the run. */
async function runAndCollect(threadId: string, content: string, url = app.url): Promise<{ runId: string; events: ProtocolEvent[] }> {
  const stream = openStream(url, threadId, { channels: ALL_CHANNELS });
  await stream.response;
  const runId = await startRun(url, threadId, content);
  return { runId, events: await stream.events };
}

describe('commands', () => {
  it('run.start answers success with the run id', async () => {
    const { status, body } = await sendCommand(app.url, thread(), { id: 7, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage('hello') } });
    expect(status).toBe(200);
    expect(body).toEqual({ type: 'success', id: 7, result: { run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });

  it('refuses what it cannot do with the protocol error shape and a message that says why', async () => {
    const t = thread();
    const unknownMethod = await sendCommand(app.url, t, { id: 2, method: 'agent.getTree', params: {} });
    expect(unknownMethod).toEqual({ status: 400, body: { type: 'error', id: 2, error: 'unknown_command', message: expect.stringContaining('agent.getTree') } });
    const unknownAssistant = await sendCommand(app.url, t, { id: 3, method: 'run.start', params: { assistant_id: 'nobody', input: userMessage('x') } });
    expect(unknownAssistant).toEqual({ status: 400, body: { type: 'error', id: 3, error: 'invalid_argument', message: expect.stringContaining('unknown assistant "nobody"') } });
    for (const malformed of [[1], { method: 'run.start' }, { id: 'one', method: 'run.start' }, { id: 4, method: 'run.start', params: 'x' }, { id: 5, method: 'run.start', params: { assistant_id: 'deep_agent', input: 'hi' } }, { id: 6, method: 'run.start', params: { assistant_id: 'deep_agent', nonsense: true } }]) {
      const answer = await sendCommand(app.url, t, malformed);
      expect(answer.status, JSON.stringify(malformed)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'error', error: 'invalid_argument', message: expect.any(String) });
    }
    const notJson = await fetch(`${app.url}/api/threads/${t}/commands`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: 'invalid_json', message: expect.stringContaining('not JSON') });
    // Nothing was started by any of these: the thread has no state.
    expect((await fetch(`${app.url}/api/threads/${t}/state`)).status).toBe(404);
  });

  it('refuses a second run while the thread has one in progress, naming it', async () => {
    const slow = await startChatApp('busy', { CHAT_SCRIPTED_TOKEN_DELAY_MS: '20' });
    try {
      const t = thread();
      const runId = await startRun(slow.url, t, BOTH);
      const second = await sendCommand(slow.url, t, { id: 9, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage('again') } });
      expect(second).toEqual({ status: 409, body: { type: 'error', id: 9, error: 'invalid_argument', message: expect.stringContaining(runId) } });
    } finally {
      await slow.stop();
    }
  });

  it('a thread id that is not one is refused before anything runs, on every route', async () => {
    const bad = encodeURIComponent('bad id!');
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/threads/${bad}/state`],
      ['POST', `/api/threads/${bad}/state`, { values: { messages: [] } }],
      ['POST', `/api/threads/${bad}/history`, {}],
      ['POST', `/api/threads/${bad}/stream`, { channels: ['messages'] }],
      ['DELETE', `/api/threads/${bad}`],
      ['POST', `/api/threads/${bad}/commands`, { id: 1, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage('x') } }],
    ];
    for (const [method, path, body] of calls) {
      const res = await fetch(`${app.url}${path}`, { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_argument', message: expect.any(String) });
    }
    expect(((await (await fetch(`${app.url}/api/threads`)).json()) as { id: string }[]).map((t) => t.id)).not.toContain('bad id!');
  });
});

describe('the stream', () => {
  it('speaks SSE with the headers of the reference, frames with event, id and data', async () => {
    const t = thread();
    const stream = openStream(app.url, t, { channels: ['lifecycle'] });
    const res = await stream.response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    await startRun(app.url, t, 'hello');
    const events = await stream.events;
    expect(await stream.ids).toEqual(events.map((e) => e.event_id));
    expect(events.at(-1)).toMatchObject({ method: 'lifecycle', params: { namespace: [], data: { event: 'completed' } } });
    // seq increases, event ids are unique.
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  });

  it('a coordinator turn: reasoning, task delegations on the tools channel, subagents under their own namespaces, a streamed answer, lifecycle', async () => {
    const { events } = await runAndCollect(thread(), BOTH);
    const root = events.filter((e) => e.params.namespace.length === 0 || e.params.namespace[0]!.startsWith('model_request:'));
    // Lifecycle of the root run.
    expect(events.find((e) => e.method === 'lifecycle' && e.params.namespace.length === 0)?.params.data.event).toBe('running');
    expect(events.filter(isRootTerminal).map((e) => e.params.data.event)).toEqual(['completed']);
    // Reasoning streamed as a reasoning content block, then deltas.
    const reasoning = root.filter((e) => e.method === 'messages' && e.params.data.event === 'content-block-start' && e.params.data.content.type === 'reasoning');
    expect(reasoning.length).toBeGreaterThanOrEqual(2); // the plan and the summary
    expect(root.some((e) => e.method === 'messages' && e.params.data.delta?.type === 'reasoning-delta')).toBe(true);
    // Two task delegations, each started on the tools channel with its subagent, each finished.
    const taskStarts = events.filter((e) => e.method === 'tools' && e.params.data.event === 'tool-started' && e.params.data.tool_name === 'task');
    const inputs = taskStarts.map((e) => (typeof e.params.data.input === 'string' ? JSON.parse(e.params.data.input) : e.params.data.input));
    expect(inputs.map((i) => i.subagent_type).sort()).toEqual(['math-whiz', 'researcher']);
    for (const start of taskStarts) expect(events.some((e) => e.method === 'tools' && e.params.data.event === 'tool-finished' && e.params.data.tool_call_id === start.params.data.tool_call_id)).toBe(true);
    // Each subagent streams under its own tools:<id> namespace: its own messages and its own tool.
    const subagentNamespaces = [...new Set(taskStarts.map((e) => e.params.namespace[0]!))];
    expect(subagentNamespaces).toHaveLength(2);
    for (const ns of subagentNamespaces) expect(ns).toMatch(/^tools:/);
    const inside = (ns: string) => events.filter((e) => e.params.namespace[0] === ns && e.params.namespace.length > 1);
    const toolsUsed = subagentNamespaces.map((ns) => inside(ns).filter((e) => e.method === 'tools' && e.params.data.event === 'tool-started').map((e) => e.params.data.tool_name));
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
    const subscribe = (subscription: object) => openStream(app.url, t, subscription);
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
    await startRun(app.url, t, BOTH);
    const got = Object.fromEntries(await Promise.all(Object.entries(streams).map(async ([k, s]) => [k, await s.events] as const))) as Record<keyof typeof streams, ProtocolEvent[]>;

    expect(got.messages.length).toBeGreaterThan(20);
    expect(new Set(got.messages.map((e) => e.method))).toEqual(new Set(['messages']));
    expect(got.searchProgress.map((e) => e.params.data)).toEqual([{ name: 'search_progress', payload: { query: expect.any(String), results: expect.any(Number) } }]);
    expect(got.custom).toEqual(got.searchProgress); // the only custom events are search_progress
    expect(got.otherCustom.every((e) => e.method === 'lifecycle')).toBe(true);
    // "tools" matches "tools:<id>", the coordinator's tool node: its task calls and, below them, the subagents' own tools.
    expect(got.subagents.filter((e) => e.params.data.event === 'tool-started').map((e) => e.params.data.tool_name).sort()).toEqual(['calculator', 'search_web', 'task', 'task']);
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
    const late = openStream(app.url, t, { channels: ALL_CHANNELS });
    await waitFor('the replay', async () => (await late.response).ok);
    // …and then waits for the next run (which ends it).
    await new Promise((r) => setTimeout(r, 200));
    await startRun(app.url, t, 'hello');
    const replayed = await late.events;
    expect(replayed.slice(0, live.length)).toEqual(live);
    expect(replayed.length).toBeGreaterThan(live.length);
    expect(replayed.filter(isRootTerminal)).toHaveLength(2);

    // A client that reconnects with the seq of the last event it had gets exactly the rest of the run
    // (the thread's current run is the second one now)
    const second = replayed.slice(live.length);
    const cut = Math.floor(second.length / 2);
    const resumed = await eventsWithin(app.url, t, { channels: ALL_CHANNELS, since: second[cut]!.seq }, 1000);
    expect(resumed).toEqual(second.slice(cut + 1));
  });

  it('a reconnecting client resumes mid-run with since and misses nothing', async () => {
    const slow = await startChatApp('resume', { CHAT_SCRIPTED_TOKEN_DELAY_MS: '10' });
    try {
      const t = thread();
      const subscription = { channels: ['messages', 'tools', 'lifecycle'] };
      const full = openStream(slow.url, t, subscription);
      const dropped = new AbortController();
      const first = await fetch(`${slow.url}/api/threads/${t}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(subscription), signal: dropped.signal });
      await full.response;
      await startRun(slow.url, t, BOTH);
      // Read part of the run, then drop the connection.
      const reader = first.body!.getReader();
      let text = '';
      while ((text.match(/^data: .*\n/gm) ?? []).length < 30) text += new TextDecoder().decode((await reader.read()).value);
      dropped.abort();
      text = text.slice(0, text.lastIndexOf('\n\n') + 2); // whole frames only
      const seen = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as ProtocolEvent);
      const resumed = openStream(slow.url, t, { channels: ['messages', 'tools', 'lifecycle'], since: seen.at(-1)!.seq });
      const all = await full.events;
      const rest = await resumed.events;
      expect([...seen, ...rest].map((e) => e.event_id)).toEqual(all.map((e) => e.event_id));
      expect(rest.length).toBeGreaterThan(0);
    } finally {
      await slow.stop();
    }
  });

  it('an unknown channel or a malformed subscription is a 400 that names the problem', async () => {
    const t = thread();
    const bad = async (body: unknown) => {
      const res = await fetch(`${app.url}/api/threads/${t}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error: string; message: string } };
    };
    expect(await bad({ channels: ['messages', 'telepathy'] })).toEqual({ status: 400, body: { error: 'invalid_argument', message: expect.stringContaining('unknown channel "telepathy"') } });
    expect((await bad({})).status).toBe(400);
    expect((await bad({ channels: [] })).status).toBe(400);
    expect((await bad({ channels: ['messages'], depth: -1 })).status).toBe(400);
    expect((await bad({ channels: ['messages'], namespaces: 'tools' })).status).toBe(400);
  });

  it('a run that fails ends with a root lifecycle "failed" that says why', async () => {
    const t = thread();
    const stream = openStream(app.url, t, { channels: ['lifecycle'], namespaces: [[]], depth: 0 });
    await stream.response;
    const { status } = await sendCommand(app.url, t, { id: 1, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage(BOTH), config: { recursion_limit: 2 } } });
    expect(status).toBe(200);
    const events = await stream.events;
    expect(events.at(-1)?.params.data).toMatchObject({ event: 'failed' });
    expect(JSON.stringify(events.at(-1)?.params.data)).toMatch(/recursion/i);
  });
});

describe('the run log is bounded', () => {
  it('keeps at most CHAT_RUN_BUFFER_EVENTS events of a run: a late subscriber gets the newest, a live one all', async () => {
    const small = await startChatApp('bounded', { CHAT_RUN_BUFFER_EVENTS: '50' });
    try {
      const t = thread();
      const { events: live } = await runAndCollect(t, BOTH, small.url);
      expect(live.length).toBeGreaterThan(100);
      const replayed = await eventsWithin(small.url, t, { channels: ALL_CHANNELS }, 1000);
      // The newest events of the run, at most 50 (the log trims a tenth of its bound at a time), ending with the run's end.
      expect(replayed.length).toBeGreaterThanOrEqual(45);
      expect(replayed.length).toBeLessThanOrEqual(50);
      expect(replayed).toEqual(live.slice(live.length - replayed.length));
      expect(isRootTerminal(replayed.at(-1)!)).toBe(true);
    } finally {
      await small.stop();
    }
  });
});

describe('threads and state', () => {
  it('state is 404 before any checkpoint, bootstrapped by POST, updated, refused with 422 when invalid', async () => {
    const t = thread();
    const missing = await fetch(`${app.url}/api/threads/${t}/state`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining(t) });
    expect((await fetch(`${app.url}/api/threads/${t}/history`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);

    const post = (body: unknown) => fetch(`${app.url}/api/threads/${t}/state`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const boot = await post({ values: { messages: [] } });
    expect(boot.status).toBe(200);
    expect(await boot.json()).toMatchObject({ values: { messages: [] }, checkpoint: { thread_id: t, checkpoint_id: expect.any(String) } });
    expect(await (await fetch(`${app.url}/api/threads/${t}/state`)).json()).toMatchObject({ values: { messages: [] } });

    for (const invalid of [{ values: { no_such_key: 1 } }, { values: { messages: 'hi' } }, { values: [] }, { as_node: 5 }]) {
      const res = await post(invalid);
      expect(res.status, JSON.stringify(invalid)).toBe(422);
      expect(await res.json()).toMatchObject({ error: 'invalid_state_update', message: expect.any(String) });
    }
    // An update adds a message with the reducer.
    const updated = await post({ values: { messages: [{ type: 'human', content: 'added by hand', id: 'm1' }] } });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as any).values.messages).toEqual([expect.objectContaining({ type: 'human', content: 'added by hand', id: 'm1' })]);
  });

  it('a run leaves its messages in state; history pages through checkpoints newest first', async () => {
    const t = thread();
    await runAndCollect(t, 'What is 6 * 7?');
    const state = (await (await fetch(`${app.url}/api/threads/${t}/state`)).json()) as any;
    const types = state.values.messages.map((m: { type: string }) => m.type);
    expect(types[0]).toBe('human');
    expect(types).toContain('tool');
    expect(types.at(-1)).toBe('ai');
    const history = (body: unknown) => fetch(`${app.url}/api/threads/${t}/history`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any[] }));
    const first = await history({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(2);
    expect(first.body[0].checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    const next = await history({ limit: 2, before: first.body[1].checkpoint.checkpoint_id });
    expect(next.body).toHaveLength(2);
    expect(next.body[0].checkpoint.checkpoint_id).toBe(first.body[1].parent_checkpoint.checkpoint_id);
    const byObject = await history({ limit: 2, before: first.body[1].checkpoint });
    expect(byObject.body.map((s) => s.checkpoint.checkpoint_id)).toEqual(next.body.map((s) => s.checkpoint.checkpoint_id));
    expect((await history({ limit: 0 })).status).toBe(400);
  });

  it('lists threads newest first with titles, and DELETE removes one: state, checkpoints and list entry', async () => {
    const older = thread();
    const newer = thread();
    await runAndCollect(older, 'hello there, first thread');
    await runAndCollect(newer, 'What is 2 + 2?');
    const list = (await (await fetch(`${app.url}/api/threads`)).json()) as { id: string; title: string; updatedAt: string }[];
    const mine = list.filter((x) => x.id === older || x.id === newer);
    expect(mine).toEqual([
      { id: newer, title: 'What is 2 + 2?', updatedAt: expect.any(String) },
      { id: older, title: 'hello there, first thread', updatedAt: expect.any(String) },
    ]);
    const del = await fetch(`${app.url}/api/threads/${older}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await fetch(`${app.url}/api/threads/${older}/state`)).status).toBe(404);
    const after = (await (await fetch(`${app.url}/api/threads`)).json()) as { id: string }[];
    expect(after.map((x) => x.id)).not.toContain(older);
    expect(after.map((x) => x.id)).toContain(newer);
  });

  it('deleting a thread mid-run cancels the run and ends its streams', async () => {
    const slow = await startChatApp('delete', { CHAT_SCRIPTED_TOKEN_DELAY_MS: '20' });
    try {
      const t = thread();
      const stream = openStream(slow.url, t, { channels: ['lifecycle', 'messages'] });
      await stream.response;
      await startRun(slow.url, t, BOTH);
      await new Promise((r) => setTimeout(r, 300));
      expect((await fetch(`${slow.url}/api/threads/${t}`, { method: 'DELETE' })).status).toBe(204);
      const events = await stream.events;
      expect(events.filter(isRootTerminal).map((e) => e.params.data.event)).not.toContain('completed');
      expect((await fetch(`${slow.url}/api/threads/${t}/state`)).status).toBe(404);
    } finally {
      await slow.stop();
    }
  });
});

describe('durability', () => {
  it('with CHAT_CHECKPOINTER=postgres a thread survives a restart of the app and goes on', async () => {
    const db = await scratchPostgres('chatapp');
    const env = { CHAT_CHECKPOINTER: 'postgres', POSTGRES_URL: db.url };
    let durable = await startChatApp('durable-1', env);
    try {
      const t = thread();
      await runAndCollect(t, 'What is 6 * 7?', durable.url);
      const before = (await (await fetch(`${durable.url}/api/threads/${t}/state`)).json()) as any;
      const port = durable.port;
      await durable.stop();
      durable = await startChatApp('durable-2', env, port);
      const after = (await (await fetch(`${durable.url}/api/threads/${t}/state`)).json()) as any;
      expect(after.values.messages).toEqual(before.values.messages);
      expect(((await (await fetch(`${durable.url}/api/threads`)).json()) as { id: string; title: string }[]).find((x) => x.id === t)).toMatchObject({ title: 'What is 6 * 7?' });
      // The next turn continues the same conversation.
      await runAndCollect(t, 'What is 2 + 3?', durable.url);
      const next = (await (await fetch(`${durable.url}/api/threads/${t}/state`)).json()) as any;
      expect(next.values.messages.filter((m: { type: string }) => m.type === 'human').map((m: { content: string }) => m.content)).toEqual(['What is 6 * 7?', 'What is 2 + 3?']);
    } finally {
      await durable.stop();
      await db.drop();
    }
  });

  it('with the in-memory default, a restart forgets every thread (as documented)', async () => {
    let volatile = await startChatApp('volatile-1');
    try {
      const t = thread();
      await runAndCollect(t, 'hello', volatile.url);
      expect((await fetch(`${volatile.url}/api/threads/${t}/state`)).status).toBe(200);
      const port = volatile.port;
      await volatile.stop();
      volatile = await startChatApp('volatile-2', {}, port);
      expect((await fetch(`${volatile.url}/api/threads/${t}/state`)).status).toBe(404);
    } finally {
      await volatile.stop();
    }
  });
});

describe('tracing', () => {
  it('traces every turn into the tracing API, one tracing thread per chat thread, the root run being the protocol run', async () => {
    const workspace = (await createWorkspaces(1))[0]!;
    const project = `chat-app-${randomBytes(4).toString('hex')}`;
    const traced = await startChatApp('traced', tracingEnv(tracingUrl(), workspace.apiKey, project));
    try {
      const t = thread();
      const first = await runAndCollect(t, BOTH, traced.url);
      const second = await runAndCollect(t, 'hello', traced.url);
      const projectId = projectIdForName(workspace.id, project);
      const traces = await waitFor('two traces in the chat thread', async () => {
        const res = await api(`/api/v2/threads/${encodeURIComponent(t)}/traces?project_id=${projectId}&selects=TRACE_ID&selects=NAME`, { apiKey: workspace.apiKey });
        return res.status === 200 && res.body.items.length >= 2 ? (res.body.items as { trace_id: string; name: string }[]) : null;
      }, 60_000, 250);
      expect(traces.map((x) => x.trace_id).sort()).toEqual([first.runId, second.runId].sort());
      const root = (await api(`/runs/${first.runId}`, { apiKey: workspace.apiKey })).body;
      expect(root).toMatchObject({ name: 'deep_agent', extra: { metadata: expect.objectContaining({ thread_id: t }) } });
      // The subagents' work is in the same trace.
      const tree = await waitFor('the subagent runs in the trace', async () => {
        const res = await api('/runs/query', { apiKey: workspace.apiKey, method: 'POST', json: { trace: first.runId, select: ['name'], limit: 100 } });
        const names = (res.body.runs ?? []).map((r: { name: string }) => r.name);
        return names.includes('calculator') && names.includes('search_web') ? names : null;
      }, 60_000, 250);
      expect(tree).toContain('task');
    } finally {
      await traced.stop();
    }
  });
});

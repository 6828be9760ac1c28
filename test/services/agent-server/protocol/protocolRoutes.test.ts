// The agent streaming protocol on the agent server (protocol/protocolRoutes.ts), over plain HTTP
// and SSE, against a server process: every command's answer and errors, the stream's frames,
// filters (channel, custom:<name>, namespace prefix, depth), `since`, replay then live, event ids
// and seq across runs, interrupts answered by input.respond (and by run.start), the thread's
// state through state.get / state.listCheckpoints / state.fork, and workspaces kept apart.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';
import {
  command,
  human,
  isRootTerminal,
  openStream,
  replay,
  startRun,
  type ProtocolCaller,
  type ProtocolEvent,
} from '../../../support/protocolClient.ts';
import { createWorkspaces } from '../../../support/tracingClient.ts';

let server: AgentServer;
let me: ProtocolCaller;

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '..', 'fixtures');
  const configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      approval: `${join(fixtures, 'approvalGraph.ts')}:graph`,
      slow: `${join(fixtures, 'slowGraph.ts')}:graph`,
      probe: `${join(fixtures, 'protocolProbeGraph.ts')}:graph`,
    },
  });
  server = await startAgentServer('protocol', { configFile });
  me = { url: server.url, headers: server.headers };
}, 120_000);
afterAll(() => server?.stop());

const ALL = ['values', 'updates', 'messages', 'tools', 'lifecycle', 'input', 'checkpoints', 'tasks', 'custom'];

/** A thread of the caller's workspace, made through the threads API (a stream needs one). */
async function newThread(caller: ProtocolCaller = me): Promise<string> {
  const res = await fetch(`${caller.url}/threads`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { thread_id: string }).thread_id;
}

/** Waits for a run of the thread to end; its status. */
async function joined(caller: ProtocolCaller, threadId: string, runId: string): Promise<string> {
  const res = await fetch(`${caller.url}/threads/${threadId}/runs/${runId}/join`, { headers: caller.headers });
  expect(res.status).toBe(200);
  const run = await fetch(`${caller.url}/threads/${threadId}/runs/${runId}`, { headers: caller.headers });
  return ((await run.json()) as { status: string }).status;
}

/** Runs one turn with a subscription to everything opened first; every event of the run. */
async function runAndCollect(
  threadId: string,
  assistant: string,
  input: unknown,
  caller: ProtocolCaller = me,
): Promise<{ runId: string; events: ProtocolEvent[] }> {
  const stream = openStream(caller, threadId, { channels: ALL });
  expect((await stream.response).status).toBe(200);
  const runId = await startRun(caller, threadId, assistant, input);
  return { runId, events: await stream.events };
}

describe('commands', () => {
  it('are served, as /info says', async () => {
    const info = (await (await fetch(`${me.url}/info`)).json()) as { flags: Record<string, boolean> };
    expect(info.flags.streaming_protocol).toBe(true);
  });

  it('run.start makes the thread when it has none and runs the assistant through the run manager, streaming protocol events', async () => {
    const threadId = randomUUID();
    const { status, body } = await command(me, threadId, {
      id: 7,
      method: 'run.start',
      params: { assistant_id: 'agent', input: human('hello'), metadata: { from: 'test' } },
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      type: 'success',
      id: 7,
      result: { run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      meta: { thread_id: threadId, applied_through_seq: 0 },
    });
    const runId = body.result.run_id;
    expect(await joined(me, threadId, runId)).toBe('success');
    // An ordinary run of the thread, its kwargs saying it streams protocol events.
    const run = (await (
      await fetch(`${me.url}/threads/${threadId}/runs/${runId}`, { headers: me.headers })
    ).json()) as Record<string, any>;
    expect(run).toMatchObject({
      thread_id: threadId,
      metadata: { from: 'test' },
      kwargs: { stream_mode: ['protocol'] },
    });
    const state = (await (await fetch(`${me.url}/threads/${threadId}/state`, { headers: me.headers })).json()) as any;
    expect(state.values.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    // The next command's answer is applied through the thread's newest event.
    const replayed = await replay(me, threadId, { channels: ['lifecycle'] });
    const again = await command(me, threadId, { id: 8, method: 'state.get', params: {} });
    expect(again.body.meta.applied_through_seq).toBe(replayed.at(-1)!.seq);
  });

  it('refuses what it cannot do with the protocol error shape and a message that says why', async () => {
    const threadId = randomUUID();
    expect(await command(me, threadId, { id: 2, method: 'agent.getTree', params: {} })).toEqual({
      status: 400,
      body: { type: 'error', id: 2, error: 'unknown_command', message: expect.stringContaining('agent.getTree') },
    });
    expect(
      await command(me, threadId, { id: 3, method: 'run.start', params: { assistant_id: 'nobody', input: null } }),
    ).toEqual({
      status: 400,
      body: {
        type: 'error',
        id: 3,
        error: 'invalid_argument',
        message: expect.stringMatching(/unknown assistant "nobody".*"agent"/),
      },
    });
    for (const malformed of [
      [1],
      { method: 'run.start' },
      { id: 'one', method: 'run.start' },
      { id: -1, method: 'run.start', params: {} },
      { id: 4, method: 'run.start', params: 'x' },
      { id: 5, method: 'run.start', params: { assistant_id: 'agent', input: 'hi' } },
      { id: 6, method: 'run.start', params: { assistant_id: 'agent', nonsense: true } },
      { id: 7, method: 'run.start', params: { assistant_id: 'agent', multitaskStrategy: 'sometimes' } },
      { id: 8, method: 'input.respond', params: { response: 'yes' } },
      { id: 9, method: 'state.listCheckpoints', params: { limit: 0 } },
      { id: 10, method: 'state.fork', params: {} },
    ]) {
      const answer = await command(me, threadId, malformed);
      expect(answer.status, JSON.stringify(malformed)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'error', error: 'invalid_argument', message: expect.any(String) });
    }
    // A body that is not JSON is not a command: the platform's error shape, as on every route; so is a bad thread id.
    const notJson = await command(me, threadId, '{"id":');
    expect(notJson).toEqual({ status: 400, body: { error: 'BAD_REQUEST', detail: expect.stringMatching(/JSON/) } });
    expect((await command(me, 'not-a-uuid', { id: 1, method: 'state.get', params: {} })).status).toBe(422);
    // Nothing was made by any of these.
    expect((await fetch(`${me.url}/threads/${threadId}`, { headers: me.headers })).status).toBe(404);
  });

  it('a second run.start while a run is in progress is a 409 naming it, unless multitaskStrategy says otherwise', async () => {
    const threadId = randomUUID();
    const slow = await startRun(me, threadId, 'slow', human('wait'));
    const second = await command(me, threadId, {
      id: 9,
      method: 'run.start',
      params: { assistant_id: 'agent', input: human('again') },
    });
    expect(second).toEqual({
      status: 409,
      body: { type: 'error', id: 9, error: 'invalid_argument', message: expect.stringContaining(slow) },
    });
    // interrupt: the slow run is cancelled, this one runs
    const next = await startRun(me, threadId, 'agent', human('now'), { multitaskStrategy: 'interrupt' });
    expect(await joined(me, threadId, next)).toBe('success');
    expect(await joined(me, threadId, slow)).toBe('interrupted');
  });

  it('state.get, state.listCheckpoints and state.fork read and branch the thread; a thread the workspace lacks is 404', async () => {
    const unknown = randomUUID();
    for (const [method, params] of [
      ['state.get', {}],
      ['state.listCheckpoints', {}],
      ['state.fork', { checkpoint_id: randomUUID() }],
      ['input.respond', { interrupt_id: 'x', response: 1 }],
    ] as const)
      expect(await command(me, unknown, { id: 1, method, params }), method).toEqual({
        status: 404,
        body: { error: 'NOT_FOUND', detail: expect.stringContaining(unknown) },
      });

    const threadId = randomUUID();
    await joined(me, threadId, await startRun(me, threadId, 'agent', human('first')));
    const state = await command(me, threadId, { id: 2, method: 'state.get', params: { keys: ['messages'] } });
    expect(state.status).toBe(200);
    expect(state.body.result).toEqual({
      values: { messages: [expect.objectContaining({ type: 'human', content: 'first' }), expect.any(Object)] },
      checkpoint: { id: expect.any(String), ns: '' },
    });
    expect(
      (await command(me, threadId, { id: 3, method: 'state.get', params: { namespace: ['x'] } })).body,
    ).toMatchObject({ type: 'error', error: 'not_supported' });
    const listed = await command(me, threadId, { id: 4, method: 'state.listCheckpoints', params: { limit: 2 } });
    expect(listed.status).toBe(200);
    const checkpoints = listed.body.result.checkpoints as { id: string; step: number; timestamp: string }[];
    expect(checkpoints).toHaveLength(2);
    expect(checkpoints[0]!.id).toBe(state.body.result.checkpoint.id);
    expect(checkpoints[0]!.step).toBeGreaterThan(checkpoints[1]!.step);
    const older = await command(me, threadId, {
      id: 5,
      method: 'state.listCheckpoints',
      params: { before: checkpoints[0]!.id, limit: 1 },
    });
    expect(older.body.result.checkpoints.map((c: { id: string }) => c.id)).toEqual([checkpoints[1]!.id]);

    // Fork from the checkpoint before the answer: the thread goes on from there, answering again.
    const input = (await command(me, threadId, { id: 6, method: 'state.listCheckpoints', params: { limit: 10 } })).body
      .result.checkpoints as { id: string; node_name?: string; step: number }[];
    const beforeAnswer = input.find((c) => c.step === 0)!;
    const fork = await command(me, threadId, {
      id: 7,
      method: 'state.fork',
      params: { checkpoint_id: beforeAnswer.id },
    });
    expect(fork).toEqual({
      status: 200,
      body: expect.objectContaining({ result: { run_id: expect.any(String), thread_id: threadId } }),
    });
    expect(await joined(me, threadId, fork.body.result.run_id)).toBe('success');
    const after = await command(me, threadId, { id: 8, method: 'state.get', params: {} });
    expect(after.body.result.values.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    expect(after.body.result.checkpoint.id).not.toBe(state.body.result.checkpoint.id);
    expect(
      await command(me, threadId, { id: 9, method: 'state.fork', params: { checkpoint_id: randomUUID() } }),
    ).toEqual({
      status: 404,
      body: { type: 'error', id: 9, error: 'no_such_checkpoint', message: expect.stringContaining(threadId) },
    });
  });
});

describe('interrupts', () => {
  it('an interrupt is an input.requested event and an "interrupted" run; input.respond resumes it with Command({resume})', async () => {
    const threadId = await newThread();
    const { events } = await runAndCollect(threadId, 'approval', human('may I?'));
    const requested = events.filter((e) => e.method === 'input.requested');
    expect(requested).toEqual([
      expect.objectContaining({
        params: expect.objectContaining({
          namespace: [],
          data: { interrupt_id: expect.any(String), payload: { question: 'approve?' } },
        }),
      }),
    ]);
    expect(events.filter(isRootTerminal).map((e) => e.params.data.event)).toEqual(['interrupted']);
    const interruptId = requested[0]!.params.data.interrupt_id;
    const thread = (await (await fetch(`${me.url}/threads/${threadId}`, { headers: me.headers })).json()) as any;
    expect(thread.status).toBe('interrupted');

    // Answers naming no pending interrupt are refused, saying which are pending.
    expect(
      await command(me, threadId, { id: 2, method: 'input.respond', params: { interrupt_id: 'nope', response: 'x' } }),
    ).toEqual({
      status: 404,
      body: { type: 'error', id: 2, error: 'no_such_interrupt', message: expect.stringContaining(interruptId) },
    });
    const resumed = openStream(me, threadId, { channels: ['lifecycle', 'values'], since: events.at(-1)!.seq });
    await resumed.response;
    const answer = await command(me, threadId, {
      id: 3,
      method: 'input.respond',
      params: { namespace: [], interrupt_id: interruptId, response: 'yes' },
    });
    expect(answer).toEqual({
      status: 200,
      body: {
        type: 'success',
        id: 3,
        result: { run_id: expect.any(String) },
        meta: { thread_id: threadId, applied_through_seq: events.at(-1)!.seq },
      },
    });
    const after = await resumed.events;
    expect(after.filter(isRootTerminal).map((e) => e.params.data.event)).toEqual(['completed']);
    expect(after.every((e) => e.seq > events.at(-1)!.seq)).toBe(true);
    const last = after.filter((e) => e.method === 'values').at(-1)!;
    expect(last.params.data.messages.at(-1)).toMatchObject({ type: 'ai', content: 'answer was yes' });
    // Nothing waits any more.
    expect(
      await command(me, threadId, {
        id: 4,
        method: 'input.respond',
        params: { interrupt_id: interruptId, response: 1 },
      }),
    ).toMatchObject({ status: 404, body: { error: 'no_such_run' } });
  });

  it('run.start on a thread waiting for input resumes it with the input, as the protocol says', async () => {
    const threadId = await newThread();
    await runAndCollect(threadId, 'approval', human('may I?'));
    const { events } = await runAndCollect(threadId, 'approval', 'sure');
    const last = events.filter((e) => e.method === 'values').at(-1)!;
    expect(last.params.data.messages.at(-1)).toMatchObject({ type: 'ai', content: 'answer was sure' });
  });
});

describe('the stream', () => {
  it('speaks SSE as LangGraph’s server does: `event: <method>`, `id: <event_id>`, seq growing across runs', async () => {
    const threadId = await newThread();
    const stream = openStream(me, threadId, { channels: ['lifecycle', 'values'] });
    const res = await stream.response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const runId = await startRun(me, threadId, 'agent', human('hello'));
    const first = await stream.events;
    expect((await stream.frames).map((f) => [f.event, f.id])).toEqual(first.map((e) => [e.method, e.event_id]));
    for (const e of first) expect(e.event_id).toBe(`${runId}.${e.seq}`);
    expect(first[0]).toMatchObject({
      method: 'lifecycle',
      params: { namespace: [], data: { event: 'running', graph_name: 'agent' } },
    });
    expect(first.at(-1)).toMatchObject({
      method: 'lifecycle',
      params: { namespace: [], data: { event: 'completed' } },
    });
    // (a subscription opened after a run has ended replays it first)
    const again = await runAndCollect(threadId, 'agent', human('again'));
    const second = again.events.filter((e) => e.event_id.startsWith(again.runId));
    expect(again.events.filter((e) => e.event_id.startsWith(runId)).length).toBeGreaterThan(first.length);
    const seqs = [...first, ...second].map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set([...first, ...second].map((e) => e.event_id)).size).toBe(first.length + second.length);
  });

  it('filters by channel, custom:<name>, namespace prefix (segment by segment) and depth', async () => {
    const threadId = await newThread();
    const subscribe = (subscription: object) => openStream(me, threadId, subscription);
    const streams = {
      all: subscribe({ channels: ALL }),
      progress: subscribe({ channels: ['custom:progress'] }),
      other: subscribe({ channels: ['custom:nothing_writes_this', 'lifecycle'], namespaces: [[]], depth: 0 }),
      inner: subscribe({ channels: ['custom', 'values'], namespaces: [['inner']] }),
      innerTop: subscribe({ channels: ['lifecycle'], namespaces: [['inner']], depth: 0 }),
      root: subscribe({ channels: ['custom', 'values'], namespaces: [[]], depth: 0 }),
    };
    await Promise.all(Object.values(streams).map((s) => s.response));
    await startRun(me, threadId, 'probe', human('probe'));
    const got = Object.fromEntries(
      await Promise.all(Object.entries(streams).map(async ([k, s]) => [k, await s.events] as const)),
    ) as Record<keyof typeof streams, ProtocolEvent[]>;
    const innerNamespace = got.all.find((e) => e.params.namespace[0]?.startsWith('inner:'))!.params.namespace;
    expect(innerNamespace).toEqual([expect.stringMatching(/^inner:/)]);
    expect(got.progress.map((e) => [e.params.namespace.length, e.params.data])).toEqual([
      [0, { name: 'progress', payload: { step: 'outer' } }],
      [1, { name: 'progress', payload: { step: 'inner' } }],
    ]);
    expect(got.other.map((e) => e.params.data.event)).toEqual(['running', 'completed']);
    // "inner" matches "inner:<id>": the subgraph's own events only
    expect(got.inner.length).toBeGreaterThan(1);
    expect(got.inner.every((e) => e.params.namespace[0] === innerNamespace[0])).toBe(true);
    expect(got.innerTop.map((e) => e.params.data.event)).toEqual(['started', 'completed']);
    expect(got.root.every((e) => e.params.namespace.length === 0)).toBe(true);
    expect(got.root.map((e) => e.method)).toContain('values');
    // All of them are slices of the one sequence of events.
    const ids = new Set(got.all.map((e) => e.event_id));
    for (const events of Object.values(got)) for (const e of events) expect(ids.has(e.event_id)).toBe(true);
  });

  it('replays the buffered events first, then live ones; `since` skips what a client has', async () => {
    const threadId = await newThread();
    const { events: live } = await runAndCollect(threadId, 'probe', human('one'));
    // The run has ended: a new subscription replays it…
    const late = openStream(me, threadId, { channels: ALL });
    expect((await late.response).status).toBe(200);
    await expect.poll(() => late.received().length, { timeout: 30_000 }).toBe(live.length);
    // …then follows the thread's next run (which ends it).
    await startRun(me, threadId, 'probe', human('two'));
    const replayed = await late.events;
    expect(replayed.slice(0, live.length)).toEqual(live);
    expect(replayed.filter(isRootTerminal)).toHaveLength(2);
    // A client that comes back with the seq of the last event it had gets exactly the rest.
    const second = replayed.slice(live.length);
    const cut = Math.floor(second.length / 2);
    const rest = await replay(me, threadId, { channels: ALL, since: second[cut]!.seq });
    expect(rest).toEqual(second.slice(cut + 1));
  });

  it('a bad subscription is a 422 that names the problem; a thread the workspace lacks is a 404', async () => {
    const threadId = await newThread();
    const bad = async (body: unknown) => {
      const res = await fetch(`${me.url}/threads/${threadId}/stream/events`, {
        method: 'POST',
        headers: { ...me.headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
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
      { channels: ['x'], since: 'a' },
    ])
      expect((await bad(malformed)).status, JSON.stringify(malformed)).toBe(422);
    const unknown = openStream(me, randomUUID(), { channels: ['lifecycle'] });
    const res = await unknown.response;
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'NOT_FOUND', detail: expect.stringMatching(/^thread .* not found$/) });
  });
});

describe('workspaces', () => {
  it("another workspace's thread answers as one that never was; run.start makes the caller's own thread of that id", async () => {
    const [wb] = await createWorkspaces(1);
    const them: ProtocolCaller = { url: server.url, headers: { 'x-api-key': wb!.apiKey } };
    const threadId = await newThread();
    const { events } = await runAndCollect(threadId, 'agent', human('secret of mine'));
    for (const [method, params] of [
      ['state.get', {}],
      ['state.listCheckpoints', {}],
      ['input.respond', { interrupt_id: 'x', response: 1 }],
    ] as const)
      expect(await command(them, threadId, { id: 1, method, params }), method).toEqual({
        status: 404,
        body: { error: 'NOT_FOUND', detail: `thread ${threadId} not found` },
      });
    expect((await openStream(them, threadId, { channels: ['lifecycle'] }).response).status).toBe(404);
    // The same id is theirs to use: their run sees nothing of mine, and mine is untouched.
    const { events: theirs } = await (async () => {
      const runId = await startRun(them, threadId, 'agent', human('hello'));
      expect(await joined(them, threadId, runId)).toBe('success');
      return { events: await replay(them, threadId, { channels: ALL }) };
    })();
    expect(JSON.stringify(theirs)).not.toContain('secret of mine');
    expect(new Set(theirs.map((e) => e.event_id.split('.')[0])).size).toBe(1);
    const mine = await replay(me, threadId, { channels: ALL });
    expect(mine.map((e) => e.event_id)).toEqual(events.map((e) => e.event_id));
    expect(JSON.stringify(mine)).not.toContain(wb!.id);
  });
});

// Every runs method of the official JS LangGraph SDK (@langchain/langgraph-sdk 2.x; cancelMany
// from the 1.x copy @langchain/react brings, the one that has it) and threads.joinStream, and of
// the Python SDK (test/e2e/python/langgraph_sdk_runs_all.py), against our agent server on each store: create, createBatch, stream, wait, list, get, cancel,
// cancelMany, join, joinStream (of a thread's run and of a stateless run, resumed with
// Last-Event-ID), delete; the run options on_disconnect, after_seconds, if_not_exists,
// interrupt_before/after, Command(resume) after interrupt(), stream_mode events; webhooks to a
// local receiver; and feedback_keys, whose token URLs record feedback on the run's trace.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import { Client as ClientV1 } from '../../node_modules/@langchain/react/node_modules/@langchain/langgraph-sdk/dist/index.js';
import {
  exampleGraph,
  startAgentServerOn,
  writeAgentConfig,
  type AgentServer,
  type AgentServerOnStore,
} from '../support/agentServer.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../support/tracingClient.ts';
import { Client as LangSmithClient } from 'langsmith';
import { readSseUntil } from '../support/sseEvents.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';

const fixtures = join(import.meta.dirname, '..', 'services', 'agent-server', 'fixtures');
const configFile = writeAgentConfig({
  graphs: {
    agent: exampleGraph('chatAgent'),
    approval: exampleGraph('approvalGraph'),
    slow: `${join(fixtures, 'slowGraph.ts')}:graph`,
    failing: `${join(fixtures, 'a2aFailingGraph.ts')}:graph`,
  },
});

const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const lastText = (values: any) => values.messages.at(-1).content;

type Part = { event: string; data: any; id?: string };

async function collect(stream: AsyncIterable<Part>, until?: (parts: Part[]) => boolean): Promise<Part[]> {
  const parts: Part[] = [];
  for await (const part of stream) {
    parts.push(part);
    if (until?.(parts)) break;
  }
  return parts;
}

let pyenv: PythonEnv;
beforeAll(async () => {
  pyenv = await ensurePythonEnv();
}, 20 * 60_000);

describe.each(['memory', 'postgres'] as const)('JS SDK runs, %s store', (store) => {
  let started: AgentServerOnStore;
  let server: AgentServer;
  let client: Client;
  let v1: ClientV1;

  let tracing: Workspace;

  beforeAll(async () => {
    [tracing] = (await createWorkspaces(1)) as [Workspace];
    started = await startAgentServerOn(store, 'sdk-runs', {
      configFile,
      env: {
        // the test's webhook receiver listens on loopback, which the host policy refuses by default
        AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        // runs traced into a workspace of the tracing API: feedback_keys' tokens are on their traces
        LANGSMITH_TRACING: 'true',
        LANGSMITH_ENDPOINT: tracingUrl(),
        LANGSMITH_API_KEY: tracing.apiKey,
        LANGSMITH_PROJECT: `sdk-runs-${store}`,
      },
    });
    server = started.server;
    client = new Client({ apiUrl: server.url, apiKey: server.apiKey });
    v1 = new ClientV1({ apiUrl: server.url, apiKey: server.apiKey });
  }, 120_000);
  afterAll(() => started?.stop());

  it('create, get, list, join and delete a background run; wait and stream', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'agent', { input: human('background') });
    expect(run).toMatchObject({ thread_id: thread.thread_id, status: expect.stringMatching(/pending|running/) });
    const joined: any = await client.runs.join(thread.thread_id, run.run_id);
    expect(lastText(joined)).toBe('Turn 1: you said "background"');
    expect(await client.runs.get(thread.thread_id, run.run_id)).toMatchObject({ status: 'success' });
    const waited: any = await client.runs.wait(thread.thread_id, 'agent', { input: human('waited') });
    expect(lastText(waited)).toBe('Turn 2: you said "waited"');
    const streamed = await collect(
      client.runs.stream(thread.thread_id, 'agent', { input: human('streamed'), streamMode: ['values'] }),
    );
    expect(streamed.map((p) => p.event)).toEqual(['metadata', 'values', 'values']);
    const listed = await client.runs.list(thread.thread_id);
    expect(listed).toHaveLength(3);
    expect(listed.map((r) => r.status)).toEqual(['success', 'success', 'success']);
    await client.runs.delete(thread.thread_id, run.run_id);
    expect(await client.runs.list(thread.thread_id)).toHaveLength(2);
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toThrow(/404|not found/i);
  });

  it('joinStream of a run: the stream modes asked for, resumed after Last-Event-ID', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'agent', {
      input: human('join me'),
      streamMode: ['values', 'messages-tuple', 'custom'],
    });
    const all = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(all[0]!.event).toBe('metadata');
    expect(all.map((p) => p.event)).toEqual(expect.arrayContaining(['values', 'messages', 'custom']));
    const valuesOnly = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: ['values'] }));
    expect([...new Set(valuesOnly.map((p) => p.event))]).toEqual(['metadata', 'values']);
    // the raw stream's ids: resuming after the third event gives the rest
    const raw = await readSseUntil(
      await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: server.headers }),
      () => false,
    );
    expect(raw.map((p) => p.id)).toEqual(raw.map((_, i) => String(i + 1)));
    const rest = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: '3' }));
    expect(rest.map((p) => p.event)).toEqual(raw.slice(3).map((p) => p.event));
  });

  it('joinStream with cancelOnDisconnect: leaving cancels the run; without it the run goes on', async () => {
    const thread = await client.threads.create();
    const kept = await client.runs.create(thread.thread_id, 'slow', {
      input: { messages: [] },
      streamMode: ['custom'],
    });
    const leave = new AbortController();
    await collect(client.runs.joinStream(thread.thread_id, kept.run_id, { signal: leave.signal }), () => true);
    leave.abort();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await client.runs.get(thread.thread_id, kept.run_id)).status).toBe('running');
    await client.runs.cancel(thread.thread_id, kept.run_id, true);

    const run = await client.runs.create(thread.thread_id, 'slow', { input: { messages: [] }, streamMode: ['custom'] });
    const gone = new AbortController();
    // the SDK sends cancel_on_disconnect=1, which the server reads as a boolean
    const stream = client.runs.joinStream(thread.thread_id, run.run_id, {
      cancelOnDisconnect: true,
      signal: gone.signal,
    });
    await collect(stream, () => true);
    gone.abort();
    await waitFor('the run cancelled when its joiner left', async () =>
      (await client.runs.get(thread.thread_id, run.run_id)).status === 'interrupted' ? true : undefined,
    );
  });

  it('createBatch makes stateless runs; joinStream(null, id) streams one, resumed after Last-Event-ID', async () => {
    // (createBatch sends each payload's keys as given: camelCase ones, such as streamMode, are not the API's)
    const created = await client.runs.createBatch([
      { assistantId: 'agent', input: human('batch one') },
      { assistantId: 'agent', input: human('batch two') },
    ]);
    expect(created).toHaveLength(2);
    const first = created[0]!;
    const events = await collect(client.runs.joinStream(null, first.run_id));
    expect(events.map((p) => p.event)).toEqual(['metadata', 'values', 'values']);
    expect(lastText(events.at(-1)!.data)).toBe('Turn 1: you said "batch one"');
    const rest = await collect(client.runs.joinStream(null, first.run_id, { lastEventId: '2' }));
    expect(rest.map((p) => p.event)).toEqual(['values']);
    await expect(collect(client.runs.joinStream(null, randomUUID()))).rejects.toThrow(/404|not found/i);
  });

  it('cancel a running run; cancelMany by run ids, and by status', async () => {
    const thread = await client.threads.create();
    const running = await client.runs.create(thread.thread_id, 'slow', { input: { messages: [] } });
    await waitFor('the slow run running', async () =>
      (await client.runs.get(thread.thread_id, running.run_id)).status === 'running' ? true : null,
    );
    await client.runs.cancel(thread.thread_id, running.run_id, true);
    expect((await client.runs.get(thread.thread_id, running.run_id)).status).toBe('interrupted');

    // two runs held back by after_seconds, cancelled by id
    const a = await client.runs.create(thread.thread_id, 'agent', { input: human('a'), afterSeconds: 600 });
    const b = await client.runs.create(thread.thread_id, 'agent', {
      input: human('b'),
      afterSeconds: 600,
      multitaskStrategy: 'enqueue',
    });
    expect((await client.runs.get(thread.thread_id, a.run_id)).status).toBe('pending');
    await v1.runs.cancelMany({ threadId: thread.thread_id, runIds: [a.run_id, b.run_id] });
    for (const r of [a, b]) expect((await client.runs.get(thread.thread_id, r.run_id)).status).toBe('interrupted');

    // by status: the workspace's pending runs, here one on each of two threads
    const other = await client.threads.create();
    const pending = await Promise.all(
      [thread, other].map((t) => client.runs.create(t.thread_id, 'agent', { input: human('p'), afterSeconds: 600 })),
    );
    await v1.runs.cancelMany({ status: 'pending', action: 'interrupt' });
    for (const r of pending) expect((await client.runs.get(r.thread_id, r.run_id)).status).toBe('interrupted');
    // a body naming neither is refused, naming the fields
    const bad = await fetch(`${server.url}/runs/cancel`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: thread.thread_id }),
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/required property .run_ids., .* .status./);
    // a delay past the longest timer (about 24 days) is refused, naming after_seconds, and nothing runs
    const runsBefore = (await client.runs.list(other.thread_id)).length;
    await expect(
      client.runs.create(other.thread_id, 'agent', { input: human('much later'), afterSeconds: 3e6 }),
    ).rejects.toThrow(/422.*after_seconds|after_seconds.*422/s);
    expect(await client.runs.list(other.thread_id)).toHaveLength(runsBefore);
  });

  it('threads.joinStream follows the current run and the next ones, resumed after Last-Event-ID', async () => {
    const thread = await client.threads.create();
    // the thread's current run, running until cancelled: the stream joins it whenever it opens
    const first = await client.runs.create(thread.thread_id, 'slow', {
      input: { messages: [] },
      streamMode: ['values', 'custom'],
    });
    const gone = new AbortController();
    const parts: Part[] = [];
    const runDone = (n: number) =>
      parts.filter((p) => p.event === 'metadata' && p.data?.status === 'run_done').length >= n;
    const following = (async () => {
      for await (const part of client.threads.joinStream(thread.thread_id, { signal: gone.signal })) {
        parts.push(part as Part);
        if (runDone(2)) return;
      }
    })().catch((err) => {
      if (!gone.signal.aborted) throw err;
    });
    // once the stream has the current run's events it watches the thread: the next run is followed
    await waitFor('the current run in the thread stream', async () => parts.some((p) => p.event === 'custom'));
    const second = await client.runs.create(thread.thread_id, 'agent', {
      input: human('two'),
      multitaskStrategy: 'interrupt',
    });
    await following;
    gone.abort();
    const events = parts.map((p) => p.event);
    expect(events.filter((e) => e === 'values').length).toBeGreaterThanOrEqual(2);
    const ids = parts
      .filter((p) => p.event === 'metadata' && p.data.status === 'run_done')
      .map((p) => p.data.run_id as string);
    expect(ids).toEqual([first.run_id, second.run_id]);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('interrupted');

    // resuming after the first run's end: the second run only, from its start
    const raw = await readSseUntil(
      await fetch(`${server.url}/threads/${thread.thread_id}/stream`, {
        headers: { ...server.headers, 'last-event-id': `${first.run_id}:done` },
      }),
      (seen) => seen.some((p) => p.data?.status === 'run_done'),
    );
    expect(raw[0]).toMatchObject({ event: 'metadata', id: `${second.run_id}:1`, data: { run_id: second.run_id } });
    expect(raw.at(-1)).toMatchObject({ id: `${second.run_id}:done`, data: { status: 'run_done' } });
    // lifecycle only: each run's start and end
    const lifecycle = await readSseUntil(
      await fetch(`${server.url}/threads/${thread.thread_id}/stream?stream_mode=lifecycle`, {
        headers: { ...server.headers, 'last-event-id': '-' },
      }),
      (seen) => seen.filter((p) => p.data?.status === 'run_done').length === 2,
    );
    expect(lifecycle.map((p) => [p.event, p.data.status ?? 'start'])).toEqual([
      ['metadata', 'start'],
      ['metadata', 'run_done'],
      ['metadata', 'start'],
      ['metadata', 'run_done'],
    ]);
  });

  it('on_disconnect cancel: a client that leaves a stream cancels its run', async () => {
    const thread = await client.threads.create();
    const leaving = new AbortController();
    let runId: string | undefined;
    await collect(
      client.runs.stream(thread.thread_id, 'slow', {
        input: { messages: [] },
        streamMode: ['custom'],
        onDisconnect: 'cancel',
        signal: leaving.signal,
        onRunCreated: (meta) => (runId = meta.run_id),
      }),
      (parts) => {
        if (parts.some((p) => p.event === 'custom')) leaving.abort();
        return leaving.signal.aborted;
      },
    ).catch(() => undefined);
    await waitFor('the run cancelled', async () =>
      (await client.runs.get(thread.thread_id, runId!)).status === 'interrupted' ? true : null,
    );
  });

  it('after_seconds starts a run later; if_not_exists creates or refuses the thread', async () => {
    const threadId = randomUUID();
    await expect(client.runs.wait(threadId, 'agent', { input: human('x') })).rejects.toThrow(/404|not found/i);
    const later = await client.runs.create(threadId, 'agent', {
      input: human('later'),
      afterSeconds: 1,
      ifNotExists: 'create',
    });
    expect(later.status).toBe('pending');
    const values: any = await client.runs.join(threadId, later.run_id);
    expect(lastText(values)).toBe('Turn 1: you said "later"');
    const run = await client.runs.get(threadId, later.run_id);
    expect(Date.parse(run.updated_at) - Date.parse(run.created_at)).toBeGreaterThanOrEqual(1000);
  });

  it('interrupt_before and interrupt_after stop the graph at a node; a run with no input goes on', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'agent', { input: human('stop'), interruptBefore: ['agent'] });
    let state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(['agent']);
    await client.runs.wait(thread.thread_id, 'agent', { input: null });
    state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual([]);
    expect(lastText(state.values)).toBe('Turn 1: you said "stop"');

    const after = await client.threads.create();
    await client.runs.wait(after.thread_id, 'approval', { input: human('mail'), interruptAfter: ['propose'] });
    expect((await client.threads.getState(after.thread_id)).next).toEqual(['review']);
  });

  it('Command(resume) after interrupt(): the approval graph waits, then acts on the answer', async () => {
    const thread = await client.threads.create();
    const waiting: any = await client.runs.wait(thread.thread_id, 'approval', { input: human('deploy v2') });
    expect(waiting.__interrupt__[0].value).toMatchObject({ question: 'Approve: send "deploy v2"?' });
    const stored = await client.threads.get(thread.thread_id);
    expect(stored.status).toBe('interrupted');
    const done: any = await client.runs.wait(thread.thread_id, 'approval', { command: { resume: 'approve' } });
    expect(lastText(done)).toBe('Done: send "deploy v2".');
    // streamed, and rejected
    const other = await client.threads.create();
    await client.runs.wait(other.thread_id, 'approval', { input: human('drop tables') });
    const parts = await collect(
      client.runs.stream(other.thread_id, 'approval', { command: { resume: 'no' }, streamMode: 'updates' }),
    );
    expect(parts.at(-1)!.data).toMatchObject({
      act: { messages: [{ content: 'Cancelled: send "drop tables" was not approved.' }] },
    });
  });

  it('webhook: the run is POSTed to it when it ends; a host the policy refuses is a 422 naming webhook', async () => {
    const calls: any[] = [];
    const receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        calls.push(JSON.parse(text));
        res.writeHead(calls.length === 1 ? 503 : 204).end(); // the first call fails: retried
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/runs-done`;
      const thread = await client.threads.create();
      let runId: string | undefined;
      const values: any = await client.runs.wait(thread.thread_id, 'agent', {
        input: human('hook'),
        webhook,
        onRunCreated: (meta) => (runId = meta.run_id),
      });
      const call = await waitFor('the webhook call', async () => calls[1]);
      expect(call).toMatchObject({
        run_id: runId,
        thread_id: thread.thread_id,
        status: 'success',
        values: { messages: values.messages },
        kwargs: expect.objectContaining({ input: human('hook') }),
      });
      expect(Date.parse(call.run_ended_at)).toBeGreaterThanOrEqual(Date.parse(call.run_started_at));
      // a stateless run that fails says why
      await client.runs.wait(null, 'failing', { input: human('x'), webhook, raiseError: false });
      const failed = await waitFor('the failed run’s call', async () => calls[2]);
      expect(failed).toMatchObject({ status: 'error', error: 'the tool broke', values: human('x') });

      await expect(
        client.runs.create(thread.thread_id, 'agent', { input: human('x'), webhook: 'http://10.0.0.1/hook' }),
      ).rejects.toThrow(/422.*webhook|webhook.*not allowed/s);
    } finally {
      receiver.close();
    }
  });

  it('feedback_keys: the feedback event’s token URLs record feedback on the run’s trace, with no API key', async () => {
    let runId: string | undefined;
    const parts = await collect(
      client.runs.stream(null, 'agent', {
        input: human('rate me'),
        feedbackKeys: ['thumbs', 'correct'],
        onRunCreated: (meta) => (runId = meta.run_id),
      }),
    );
    const feedback = parts.find((p) => p.event === 'feedback');
    expect(Object.keys(feedback!.data).sort()).toEqual(['correct', 'thumbs']);
    expect(parts.at(-1)).toBe(feedback); // after the graph's events, as the run ends
    for (const [key, score] of [
      ['thumbs', 1],
      ['correct', 0],
    ] as const) {
      const res = await fetch(feedback!.data[key], {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ score, comment: `${key} from the page` }),
      });
      expect(res.status).toBe(200);
    }
    const langsmith = new LangSmithClient({ apiUrl: tracingUrl(), apiKey: tracing.apiKey, autoBatchTracing: false });
    const items = await waitFor('the feedback on the run', async () => {
      const found: any[] = [];
      for await (const f of langsmith.listFeedback({ runIds: [runId!] })) found.push(f);
      return found.length === 2 ? found : null;
    });
    expect(items.map((f) => [f.key, f.score]).sort()).toEqual([
      ['correct', 0],
      ['thumbs', 1],
    ]);
    // the run's trace: its root has the run's id, and the feedback is on it
    const root = await waitForRun(tracing.apiKey, runId!, (r) => r.end_time !== null);
    expect(root).toMatchObject({ id: runId, trace_id: runId });
    expect(items.every((f) => f.trace_id === null || f.trace_id === runId)).toBe(true);
  });

  it('the Python SDK: every runs method, and threads.join_stream', async () => {
    // The SDK sends LANGGRAPH_API_KEY as X-Api-Key, as against LangGraph Platform.
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_runs_all.py', [server.url], {
      LANGGRAPH_API_KEY: server.apiKey,
    });
    expect(result).toMatchObject({
      joined: 'Turn 1: you said "background"',
      got: 'success',
      waited: 'Turn 2: you said "waited"',
      streamed: ['events', 'metadata', 'values'],
      listed: ['success', 'success', 'success'],
      listed_after_delete: 2,
      join_values: ['metadata', 'values', 'values'],
      batch: 2,
      cancelled: 'interrupted',
      cancelled_by_id: 'interrupted',
      cancelled_by_status: 'interrupted',
      question: 'Approve: send "ship it"?',
      resumed: 'Done: send "ship it".',
      next_before: ['agent'],
      if_not_exists_reject: 404,
      later_status: 'pending',
      later: 'Turn 1: you said "later"',
      feedback_keys: ['thumbs'],
      feedback_status: 200,
    });
    expect(result.stream_event_kinds).toEqual(expect.arrayContaining(['on_chain_start', 'on_chat_model_stream']));
    expect(result.join_all).toEqual(expect.arrayContaining(['metadata', 'values', 'custom']));
    expect(result.join_rest).toEqual(result.join_all.slice(2));
    expect(result.thread_stream_done).toEqual(result.thread_stream_runs);
  }, 180_000);

  it('stream_mode events: LangChain callback events beside the values', async () => {
    const parts = await collect(
      client.runs.stream(null, 'agent', { input: human('events'), streamMode: ['events', 'values'] }),
    );
    const kinds = parts.filter((p) => p.event === 'events').map((p) => p.data.event);
    expect(kinds).toEqual(expect.arrayContaining(['on_chain_start', 'on_chat_model_stream', 'on_chain_end']));
    expect(lastText(parts.filter((p) => p.event === 'values').at(-1)!.data)).toBe('Turn 1: you said "events"');
  });
});

// The official JS LangGraph SDK (@langchain/langgraph-sdk), unchanged, against our agent server
// serving the example assistants: assistants, threads, state, history, and runs that wait,
// stream in every stream mode the issue names, join and cancel; and two workspaces' clients with
// a thread of one id each.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import { EXAMPLES_CONFIG, startAgentServer, type AgentServer } from '../support/agentServer.ts';
import { createWorkspaces } from '../support/tracingClient.ts';

let server: AgentServer;
let client: Client;

beforeAll(async () => {
  server = await startAgentServer('sdk-js', { configFile: EXAMPLES_CONFIG });
  client = new Client({ apiUrl: server.url, apiKey: server.apiKey });
});
afterAll(() => server?.stop());

const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const lastText = (values: any) => values.messages.at(-1).content;

async function collect(stream: AsyncIterable<{ event: string; data: any }>) {
  const events: { event: string; data: any }[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe('assistants', () => {
  it('registers each graph of the config file under its uuid5 id, found by id or graph name', async () => {
    const found = await client.assistants.search({ limit: 10 });
    expect(found.map((a) => a.graph_id).sort()).toEqual(['adk_echo', 'agent', 'approval', 'counter', 'memory', 'noop']);
    const agent = await client.assistants.get('fe096781-5601-53d2-b2f6-0d3403f7e9ca');
    expect(agent).toMatchObject({ graph_id: 'agent', name: 'agent', metadata: { created_by: 'system' } });
    expect((await client.assistants.search({ graphId: 'counter' })).map((a) => a.name)).toEqual(['counter']);
    await expect(client.assistants.get('no-such-graph')).rejects.toThrow(/404|not found/i);
  });
});

describe('threads and runs', () => {
  it('wait returns the final values; a second turn on the thread remembers the first', async () => {
    const thread = await client.threads.create();
    expect(thread).toMatchObject({ status: 'idle', metadata: {} });
    let created: { run_id: string; thread_id?: string } | undefined;
    const first = await client.runs.wait(thread.thread_id, 'agent', {
      input: human('hello'),
      onRunCreated: (meta) => (created = meta),
    });
    expect(lastText(first)).toBe('Turn 1: you said "hello"');
    expect(created?.thread_id).toBe(thread.thread_id);
    const second = await client.runs.wait(thread.thread_id, 'fe096781-5601-53d2-b2f6-0d3403f7e9ca', {
      input: human('again'),
    });
    expect(lastText(second)).toBe('Turn 2: you said "again"');
    expect((second as any).messages).toHaveLength(4);

    const run = await client.runs.get(thread.thread_id, created!.run_id);
    expect(run).toMatchObject({
      run_id: created!.run_id,
      thread_id: thread.thread_id,
      status: 'success',
      assistant_id: 'fe096781-5601-53d2-b2f6-0d3403f7e9ca',
    });
    expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(['success', 'success']);

    const state = await client.threads.getState(thread.thread_id);
    expect(lastText(state.values)).toBe('Turn 2: you said "again"');
    expect(state.next).toEqual([]);
    expect(state.checkpoint.thread_id).toBe(thread.thread_id);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 3 });
    expect(history).toHaveLength(3);
    expect(history[0]!.checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    const stored = await client.threads.get(thread.thread_id);
    expect(stored.status).toBe('idle');
    expect(stored.metadata).toMatchObject({ graph_id: 'agent' });
  });

  it('streams values, updates, custom, messages-tuple and token-by-token messages, starting with metadata', async () => {
    const thread = await client.threads.create();
    const events = await collect(
      client.runs.stream(thread.thread_id, 'agent', {
        input: human('stream me please'),
        streamMode: ['values', 'updates', 'custom', 'messages', 'messages-tuple'],
      }),
    );
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('metadata');
    expect(events[0]!.data.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(names).toEqual(
      expect.arrayContaining([
        'values',
        'updates',
        'custom',
        'messages',
        'messages/metadata',
        'messages/partial',
        'messages/complete',
      ]),
    );
    const partials = events.filter((e) => e.event === 'messages/partial').map((e) => e.data[0].content);
    expect(partials.length).toBeGreaterThan(3); // one per token
    expect(partials.at(-1)).toBe('Turn 1: you said "stream me please"');
    for (let i = 1; i < partials.length; i++) expect(partials[i].startsWith(partials[i - 1])).toBe(true);
    const tuples = events.filter((e) => e.event === 'messages');
    expect(tuples.map((e) => e.data[0].content).join('')).toBe('Turn 1: you said "stream me please"');
    expect(tuples[0]!.data[1]).toMatchObject({ langgraph_node: 'agent' });
    expect(events.find((e) => e.event === 'custom')!.data).toEqual({ type: 'progress', step: 'calling the model' });
    expect(events.find((e) => e.event === 'updates')!.data.agent.messages[0].content).toBe(
      'Turn 1: you said "stream me please"',
    );
    expect(lastText(events.filter((e) => e.event === 'values').at(-1)!.data)).toBe(
      'Turn 1: you said "stream me please"',
    );
  });

  it('rejects a run on a busy thread unless another multitask strategy is asked for', async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, 'agent', { input: human('one'), afterSeconds: 1 });
    await expect(client.runs.create(thread.thread_id, 'agent', { input: human('two') })).rejects.toThrow(
      /422|busy|already running/i,
    );
    const queued = await client.runs.create(thread.thread_id, 'agent', {
      input: human('three'),
      multitaskStrategy: 'enqueue',
    });
    const joined = await client.runs.join(thread.thread_id, queued.run_id);
    expect(lastText(joined)).toBe('Turn 2: you said "three"');
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe('success');
  });

  it('cancels a run, and interrupt strategy cancels the running one', async () => {
    const thread = await client.threads.create();
    const slow = await client.runs.create(thread.thread_id, 'agent', { input: human('slow'), afterSeconds: 30 });
    await client.runs.cancel(thread.thread_id, slow.run_id, true);
    expect((await client.runs.get(thread.thread_id, slow.run_id)).status).toBe('interrupted');

    const running = await client.runs.create(thread.thread_id, 'agent', {
      input: human('slow again'),
      afterSeconds: 30,
    });
    const replacing = await client.runs.wait(thread.thread_id, 'agent', {
      input: human('now'),
      multitaskStrategy: 'interrupt',
    });
    expect(lastText(replacing)).toBe('Turn 1: you said "now"');
    expect((await client.runs.get(thread.thread_id, running.run_id)).status).toBe('interrupted');
  });

  it('joins a background run by stream, from the start', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'agent', {
      input: human('join me'),
      streamMode: ['values', 'custom'],
    });
    const events = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(events[0]!.event).toBe('metadata');
    expect(events.map((e) => e.event)).toContain('custom');
    expect(lastText(events.filter((e) => e.event === 'values').at(-1)!.data)).toBe('Turn 1: you said "join me"');
  });

  it('stateless runs wait and stream without a thread', async () => {
    const values = await client.runs.wait(null, 'agent', { input: human('no thread') });
    expect(lastText(values)).toBe('Turn 1: you said "no thread"');
    const events = await collect(
      client.runs.stream(null, 'agent', { input: human('no thread, streamed'), streamMode: 'updates' }),
    );
    expect(events.map((e) => e.event)).toEqual(['metadata', 'updates']);
    const raw = await collect(client.runs.stream(null, 'agent', { input: human('x'), streamMode: 'events' }));
    expect(raw.filter((e) => e.event === 'events').map((e) => e.data.event)).toContain('on_chat_model_stream');
  });

  it('updates state, searches, patches and deletes threads', async () => {
    const thread = await client.threads.create({ metadata: { owner: 'sdk-js-test', topic: 'state' } });
    await client.runs.wait(thread.thread_id, 'agent', { input: human('first') });
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: 'human', content: 'injected' }] },
      asNode: 'agent',
    });
    const state: any = await client.threads.getState(thread.thread_id);
    expect(state.values.messages.map((m: any) => m.content)).toEqual(['first', 'Turn 1: you said "first"', 'injected']);

    const found = await client.threads.search({ metadata: { owner: 'sdk-js-test' } });
    expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    await client.threads.update(thread.thread_id, { metadata: { topic: 'patched' } });
    expect((await client.threads.get(thread.thread_id)).metadata).toMatchObject({
      owner: 'sdk-js-test',
      topic: 'patched',
    });

    const again = await client.threads.create({ threadId: thread.thread_id, ifExists: 'do_nothing' });
    expect(again.thread_id).toBe(thread.thread_id);
    await expect(client.threads.create({ threadId: thread.thread_id })).rejects.toThrow(/409|exists/i);

    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/404|not found/i);
  });

  it('a failing run answers __error__ to wait, and an error event to stream', async () => {
    const thread = await client.threads.create();
    // recursion_limit 1 makes the graph fail before its node runs: a real failure, no special graph needed
    await expect(
      client.runs.wait(thread.thread_id, 'agent', { input: human('x'), config: { recursion_limit: 1 } }),
    ).rejects.toThrow(/recursion/i);
    expect((await client.threads.get(thread.thread_id)).status).toBe('error');
    const events = await collect(
      client.runs.stream(thread.thread_id, 'agent', { input: human('x'), config: { recursion_limit: 1 } }),
    );
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { error: 'GraphRecursionError' } });
  });
});

describe('thread ids per workspace', () => {
  it('two workspaces’ clients each create and run a thread of one id, each their own', async () => {
    const [ca, cb] = (await createWorkspaces(2)).map((ws) => new Client({ apiUrl: server.url, apiKey: ws.apiKey })) as [
      Client,
      Client,
    ];
    const threadId = randomUUID();
    await ca.threads.create({ threadId, metadata: { of: 'A' } });
    expect(await cb.threads.create({ threadId, metadata: { of: 'B' }, ifExists: 'do_nothing' })).toMatchObject({
      thread_id: threadId,
      metadata: { of: 'B' },
    });
    await Promise.all([
      ca.runs.wait(threadId, 'agent', { input: human('from A') }),
      cb.runs.wait(threadId, 'agent', { input: human('from B') }),
    ]);
    await ca.runs.wait(threadId, 'agent', { input: human('A again') });
    const [stateA, stateB] = await Promise.all([ca.threads.getState(threadId), cb.threads.getState(threadId)]);
    expect(lastText(stateA.values)).toBe('Turn 2: you said "A again"');
    expect(lastText(stateB.values)).toBe('Turn 1: you said "from B"');
    expect([stateA.checkpoint.thread_id, stateB.checkpoint.thread_id]).toEqual([threadId, threadId]);
    expect((await cb.runs.list(threadId)).length).toBe(1);
    await ca.threads.delete(threadId);
    await expect(ca.threads.get(threadId)).rejects.toThrow(/404|not found/i);
    expect((await cb.threads.get(threadId)).metadata).toMatchObject({ of: 'B' });
    expect((await cb.threads.getHistory(threadId)).length).toBeGreaterThan(0);
  });
});

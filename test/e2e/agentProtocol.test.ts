// The agent streaming protocol on the agent server through the official clients, unchanged and
// without a `paths` override: `@langchain/react`'s useStream engine (the SDK's StreamController,
// as useStream builds it: a Client, an assistant, no transport of its own, so the SDK's
// HttpAgentServerAdapter over /threads/{id}/commands and /threads/{id}/stream/events), and the
// SDK's protocol client (ThreadStream). A conversation, an interrupt answered with `respond`
// (input.respond), a reload that hydrates the thread, and the state commands; in memory and on
// PostgreSQL. The SDK is the copy @langchain/react pins (1.11: the protocol client is there).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleGraph, startAgentServerOn, writeAgentConfig, type AgentServerOnStore } from '../support/agentServer.ts';
import { waitFor } from '../support/serviceProcess.ts';

// The SDK that @langchain/react brings (its own copy), as useStream loads it.
const fromReact = createRequire(createRequire(import.meta.url).resolve('@langchain/react'));
const sdkDir = dirname(fromReact.resolve('@langchain/langgraph-sdk/package.json'));
const sdk = (await import(pathToFileURL(join(sdkDir, 'dist/index.js')).href)) as { Client: new (o: object) => any };
const { StreamController } = (await import(pathToFileURL(join(sdkDir, 'dist/stream/index.js')).href)) as {
  StreamController: new (o: object) => any;
};

const configFile = writeAgentConfig({
  graphs: {
    agent: exampleGraph('chatAgent'),
    approval: `${join(import.meta.dirname, '../services/agent-server/fixtures/approvalGraph.ts')}:graph`,
  },
});

type Snapshot = {
  values: { messages?: { type: string; content: unknown }[] };
  messages: { type?: string; content?: unknown; text?: string }[];
  interrupts: { id?: string; value: unknown }[];
  isLoading: boolean;
  error: unknown;
  threadId: string | null;
};

describe.each(['memory', 'postgres'] as const)(
  'the agent streaming protocol through the official clients (%s)',
  (store) => {
    let server: AgentServerOnStore;
    let client: any;
    const controllers: any[] = [];

    beforeAll(async () => {
      server = await startAgentServerOn(store, 'protocol-e2e', { configFile });
      client = new sdk.Client({ apiUrl: server.server.url, apiKey: server.server.apiKey });
    }, 180_000);
    afterAll(async () => {
      await Promise.all(controllers.map((c) => c.dispose().catch(() => undefined)));
      await server?.stop();
    });

    /** What useStream makes of its options: a controller for `assistantId`, on `threadId` (null: a new thread). */
    const useStream = (assistantId: string, threadId: string | null = null) => {
      const controller = new StreamController({ assistantId, client, threadId });
      controller.activate();
      controllers.push(controller);
      return { controller, snapshot: () => controller.rootStore.getSnapshot() as Snapshot };
    };
    const texts = (snapshot: Snapshot) => (snapshot.values.messages ?? []).map((m) => `${m.type}: ${m.content}`);

    it('useStream: a turn on a new thread streams its answer, which the thread keeps; a reload hydrates it', async () => {
      const stream = useStream('agent');
      await stream.controller.submit({ messages: [{ type: 'human', content: 'Hello, agent' }] });
      // (the run's end and its values come on two streams of the client's: either may be first)
      await waitFor('the answer', async () => texts(stream.snapshot()).length === 2, 60_000, 50);
      const done = stream.snapshot();
      expect(done.error).toBeUndefined();
      expect(done.isLoading).toBe(false);
      expect(done.threadId).toEqual(expect.any(String));
      expect(texts(done)).toEqual(['human: Hello, agent', expect.stringMatching(/^ai: .+/)]);
      expect(done.messages.length).toBe(2);
      // The thread is the agent server's own, with the run the protocol started.
      // (the run's end is recorded once its events are out)
      await waitFor('the idle thread', async () => (await client.threads.get(done.threadId)).status === 'idle');
      const [run] = await client.runs.list(done.threadId);
      expect(run).toMatchObject({ status: 'success', kwargs: expect.objectContaining({ stream_mode: ['protocol'] }) });

      // A second turn on the same thread.
      await stream.controller.submit({ messages: [{ type: 'human', content: 'And again' }] });
      await waitFor(
        'the second answer',
        async () => (stream.snapshot().values.messages?.length ?? 0) === 4,
        60_000,
        50,
      );

      // A reload: a new controller on the thread's id shows its conversation.
      const reloaded = useStream('agent', done.threadId);
      await reloaded.controller.hydrate(done.threadId);
      await waitFor('the hydrated thread', async () => texts(reloaded.snapshot()).length === 4, 60_000, 50);
      expect(texts(reloaded.snapshot())).toEqual(texts(stream.snapshot()));
    });

    it('useStream: an interrupt reaches the client (input.requested); respond() resumes the run (input.respond)', async () => {
      const stream = useStream('approval');
      await stream.controller.submit({ messages: [{ type: 'human', content: 'May I deploy?' }] });
      await waitFor('the interrupt', async () => stream.snapshot().interrupts.length === 1, 60_000, 50);
      const [interrupt] = stream.snapshot().interrupts;
      expect(interrupt).toMatchObject({ id: expect.any(String), value: { question: 'approve?' } });
      const threadId = stream.snapshot().threadId!;
      await waitFor(
        'the interrupted thread',
        async () => (await client.threads.get(threadId)).status === 'interrupted',
      );

      await stream.controller.respond('yes');
      await waitFor(
        'the resumed run’s answer',
        async () => texts(stream.snapshot()).at(-1) === 'ai: answer was yes' && !stream.snapshot().isLoading,
        60_000,
        50,
      );
      expect(stream.snapshot().interrupts).toEqual([]);
      expect(stream.snapshot().error).toBeUndefined();
      await waitFor('the idle thread', async () => (await client.threads.get(threadId)).status === 'idle');
      const runs = await client.runs.list(threadId);
      expect(runs.map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
    });

    it('the SDK’s protocol client: run.start, the values, state.get, state.listCheckpoints, state.fork', async () => {
      const thread = client.threads.stream({ assistantId: 'agent' });
      const started = await thread.run.start({ input: { messages: [{ type: 'human', content: 'state please' }] } });
      expect(started).toEqual({ run_id: expect.any(String) });
      const output = (await thread.output) as Snapshot['values'];
      expect(output.messages?.map((m) => m.type)).toEqual(['human', 'ai']);
      const state = await thread.state.get({ namespace: [] });
      // (the client makes messages of the values' message dicts; state.get answers the dicts)
      expect(state).toEqual({ values: expect.any(Object), checkpoint: { id: expect.any(String), ns: '' } });
      expect(state.values.messages.map((m: { type: string; content: unknown }) => [m.type, m.content])).toEqual([
        ['human', 'state please'],
        ['ai', expect.anything()],
      ]);
      const { checkpoints } = await thread.state.listCheckpoints({ limit: 10 });
      expect(checkpoints[0]).toMatchObject({ id: state.checkpoint.id, step: expect.any(Number) });
      const first = checkpoints.find((c: { step: number }) => c.step === 0);
      const fork = await thread.state.fork({ checkpoint_id: first.id });
      expect(fork).toEqual({ run_id: expect.any(String), thread_id: thread.threadId });
      await client.runs.join(thread.threadId, fork.run_id);
      // A command the server refuses reaches the caller as an error that says why.
      await expect(thread.state.fork({ checkpoint_id: 'no-such-checkpoint' })).rejects.toThrow(/no checkpoint/);
      await thread.close();
    });
  },
);

// wrap(runner) in-process, on LangGraph's in-memory checkpointer: the rules of the wrapper, each
// against a real ADK runner (the example's offline EchoLlm, or a model of the test's own).
import { describe, expect, it } from 'vitest';
import {
  BaseLlm,
  DatabaseSessionService,
  InMemorySessionService,
  LlmAgent,
  LongRunningFunctionTool,
  Runner,
  VertexAiSessionService,
  type BaseLlmConnection,
  type LlmRequest,
  type LlmResponse,
} from '@google/adk';
import { MemorySaver } from '@langchain/langgraph';
import { z } from 'zod';
import {
  CheckpointSessionService,
  SESSION_CHANNEL,
  wrap,
} from '../../../../../services/agent-server/adapters/adk/index.ts';
import { EchoLlm, agent as echoAgent } from '../../../../../examples/adk-agent/echoAgent.ts';
import { threadConfig, WorkspaceCheckpointer } from '../../../../../platform/workspaceThreads.ts';

/** A fresh wrapped echo agent on its own checkpointer. */
function echoGraph() {
  const runner = new Runner({ appName: 'adk_echo', agent: echoAgent, sessionService: new CheckpointSessionService() });
  const graph = wrap(runner);
  graph.checkpointer = new MemorySaver();
  return graph;
}

const thread = (id = crypto.randomUUID(), extra: Record<string, unknown> = {}) => ({
  configurable: { thread_id: id, ...extra },
});
const human = (content: unknown) => ({ messages: [{ role: 'user', content }] });

/** A model that answers with whatever `respond` says, once. */
class FixedLlm extends BaseLlm {
  readonly respond: (request: LlmRequest) => LlmResponse;
  constructor(respond: (request: LlmRequest) => LlmResponse) {
    super({ model: 'fixed' });
    this.respond = respond;
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    yield this.respond(request);
  }
  async connect(): Promise<BaseLlmConnection> {
    throw new Error('no live connection');
  }
}

describe('wrap(runner)', () => {
  it('refuses a runner whose sessions are not kept in the checkpoint: TypeError, naming the service', () => {
    const services = [
      new InMemorySessionService(),
      new DatabaseSessionService('sqlite://:memory:'),
      new VertexAiSessionService({ projectId: 'p', location: 'us-central1' }),
    ];
    for (const sessionService of services) {
      const runner = new Runner({ appName: 'x', agent: echoAgent, sessionService });
      expect(() => wrap(runner)).toThrow(TypeError);
      expect(() => wrap(runner)).toThrow(sessionService.constructor.name);
    }
  });

  it('is a graph named after the app; answers with one assistant message and the output_key value', async () => {
    const graph = echoGraph();
    expect(graph.name).toBe('adk_echo');
    const out = (await graph.invoke(human('hello there world') as never, thread())) as Record<string, any>;
    expect(Object.keys(out).sort()).toEqual(['last_reply', 'messages']);
    expect(out.messages.map((m: { getType(): string }) => m.getType())).toEqual(['human', 'ai']);
    expect(out.messages[1].content).toBe('Turn 1: you said "hello there world" (3 words, 3 in all)');
    expect(out.last_reply).toBe(out.messages[1].content);
  });

  it('keeps the ADK session in the thread: the next turn sees its events and state; state_delta changes state for the turn', async () => {
    const graph = echoGraph();
    const config = thread();
    await graph.invoke(human('one two') as never, config);
    const second = (await graph.invoke(
      { ...human('three'), state_delta: { tone: 'cheerful' } } as never,
      config,
    )) as Record<string, any>;
    // Turn 2 (the session's history), 3 words in all (the tool's running total in session state), the tone from state_delta.
    expect(second.messages.at(-1).content).toBe('Turn 2: you said "three" (1 words, 3 in all, cheerful)');
    expect(second.messages.map((m: { getType(): string }) => m.getType())).toEqual(['human', 'ai', 'human', 'ai']);
    const state = (await graph.getState(config)).values as Record<string, any>;
    expect(state[SESSION_CHANNEL]).toMatchObject({
      id: config.configurable.thread_id,
      appName: 'adk_echo',
      userId: 'anonymous',
      state: { word_total: 3, tone: 'cheerful', last_reply: second.last_reply },
    });
    expect(state[SESSION_CHANNEL].events.filter((e: { author: string }) => e.author === 'user')).toHaveLength(2);
  });

  it('turns at once on two workspaces’ threads of one id (one session id, one user) keep their sessions apart', async () => {
    const graph = echoGraph();
    graph.checkpointer = new WorkspaceCheckpointer(new MemorySaver());
    const threadId = crypto.randomUUID();
    const [a, b] = ['a', 'b'].map((w) =>
      threadConfig({ workspaceId: `${w}0000000-0000-4000-8000-000000000000`, threadId }),
    );
    const both = (text: (w: string) => string) =>
      Promise.all(
        [a, b].map(
          (config, i) =>
            graph.invoke(human(text(i === 0 ? 'A' : 'B')) as never, config!) as Promise<Record<string, any>>,
        ),
      );
    await both((w) => `one from ${w}`);
    const [second, secondB] = await both((w) => (w === 'A' ? 'two words from A' : 'B'));
    expect(second!.messages.at(-1).content).toBe('Turn 2: you said "two words from A" (4 words, 7 in all)');
    expect(secondB!.messages.at(-1).content).toBe('Turn 2: you said "B" (1 words, 4 in all)');
    // and streamed (the turn runs inside a chat-model call then)
    await Promise.all(
      [a, b].map(async (config, i) => {
        for await (const _ of await graph.stream(human(`three from ${i === 0 ? 'A' : 'B'}`) as never, {
          ...config!,
          streamMode: 'messages',
        }));
      }),
    );
    for (const [config, who] of [
      [a!, 'A'],
      [b!, 'B'],
    ] as const) {
      const session = ((await graph.getState(config)).values as any)[SESSION_CHANNEL];
      expect(session.id).toBe(threadId);
      const said = session.events.filter((e: any) => e.author === 'user').map((e: any) => e.content.parts[0].text);
      expect(said).toHaveLength(3);
      expect(
        said.every((text: string) => text.endsWith(who)),
        JSON.stringify(said),
      ).toBe(true);
    }
  });

  it('the thread id is the session id; the user id is the authenticated user, else anonymous', async () => {
    const graph = echoGraph();
    const signedIn = thread(undefined, {
      langgraph_auth_user_id: 'alice',
      langgraph_auth_user: { identity: 'alice', is_authenticated: true },
    });
    await graph.invoke(human('hi') as never, signedIn);
    expect(((await graph.getState(signedIn)).values as any)[SESSION_CHANNEL]).toMatchObject({
      id: signedIn.configurable.thread_id,
      userId: 'alice',
    });
    const noAuth = thread(undefined, {
      langgraph_auth_user_id: 'anonymous',
      langgraph_auth_user: { identity: 'anonymous', is_authenticated: false },
    });
    await graph.invoke(human('hi') as never, noAuth);
    expect(((await graph.getState(noAuth)).values as any)[SESSION_CHANNEL].userId).toBe('anonymous');
  });

  it('streams the partial events as tokens in stream_mode=messages', async () => {
    const graph = echoGraph();
    const tokens: string[] = [];
    for await (const [message] of await graph.stream(human('stream me please') as never, {
      ...thread(),
      streamMode: 'messages',
    }))
      tokens.push(String((message as { content: unknown }).content));
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join('')).toBe('Turn 1: you said "stream me please" (3 words, 3 in all)');
  });

  describe('what it does not serve gets an error that says so', () => {
    const failure = async (graph: ReturnType<typeof echoGraph>, input: unknown) => {
      try {
        await graph.invoke(input as never, thread());
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('the run did not fail');
    };

    it('multimodal input, several new messages, no message', async () => {
      const graph = echoGraph();
      expect(
        await failure(
          graph,
          human([
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ]),
        ),
      ).toMatch(/multimodal input is not supported.*image_url/);
      expect(
        await failure(graph, {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b' },
          ],
        }),
      ).toMatch(/several new messages in one turn are not supported \(2/);
      expect(await failure(graph, { messages: [] })).toMatch(/"messages" is required/);
    });

    it('non-text output parts', async () => {
      const agent = new LlmAgent({
        name: 'pictures',
        model: new FixedLlm(() => ({
          content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
          turnComplete: true,
        })),
      });
      const graph = wrap(new Runner({ appName: 'pictures', agent, sessionService: new CheckpointSessionService() }));
      graph.checkpointer = new MemorySaver();
      expect(await failure(graph as never, human('draw'))).toMatch(
        /non-text output parts are not supported.*inlineData/,
      );
    });

    it('native interrupts: a long-running tool', async () => {
      const approve = new LongRunningFunctionTool({
        name: 'ask_manager',
        description: 'asks a person',
        parameters: z.object({}),
        execute: async () => ({ status: 'pending' }),
      });
      const model = new FixedLlm((request) =>
        request.contents?.at(-1)?.parts?.some((p) => p.functionResponse)
          ? { content: { role: 'model', parts: [{ text: 'waiting' }] }, turnComplete: true }
          : {
              content: { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'ask_manager', args: {} } }] },
              turnComplete: true,
            },
      );
      const graph = wrap(
        new Runner({
          appName: 'approvals',
          agent: new LlmAgent({ name: 'approvals', model, tools: [approve] }),
          sessionService: new CheckpointSessionService(),
        }),
      );
      graph.checkpointer = new MemorySaver();
      expect(await failure(graph as never, human('may I?'))).toMatch(/native interrupts are not supported/);
    });
  });

  it('EchoLlm is the offline model of the example (no key needed)', () => {
    expect(echoAgent.model).toBeInstanceOf(EchoLlm);
  });
});

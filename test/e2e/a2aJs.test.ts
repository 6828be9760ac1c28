// The official A2A client for JavaScript (@a2a-js/sdk, unchanged) against our agent server, both
// ways it talks: the v1.0 client the ClientFactory makes from our agent card (PascalCase methods,
// v1.0 shapes), and the v0.3 JSON-RPC transport of its compat layer (slash methods, v0.3 shapes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  Message,
  Role,
  TaskState,
  type AgentCard,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../support/agentServer.ts';
import { a2aClientFactory, apiKeyFetch } from '../support/a2aTesting.ts';

const AGENT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';
let server: AgentServer;

beforeAll(async () => {
  const configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      counter: exampleGraph('counterGraph'),
      slow: `${join(import.meta.dirname, '..', 'services', 'agent-server', 'fixtures', 'slowGraph.ts')}:graph`,
    },
  });
  server = await startAgentServer('a2a-js', { configFile });
});
afterAll(() => server?.stop());

/** A user's text message, continuing a task's conversation when one is given. */
function say(text: string, after?: Task, returnImmediately = false): SendMessageRequest {
  const message = Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    contextId: after?.contextId,
    taskId: after?.id,
  });
  return {
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined,
  };
}

const asTask = (result: Task | Message): Task => {
  expect('status' in result, 'a Task').toBe(true);
  return result as Task;
};

const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? String(p.content.value) : '')).join('');

const answerOf = (task: Task) => textOf(task.artifacts[0]?.parts);

/** Drives one client through a conversation, a stream, tasks/get and a cancel; both client kinds must pass it. */
function conversationTests(client: () => Client, slowClient: () => Client) {
  it('sends a first message without ids, then continues the conversation by contextId and taskId', async () => {
    const first = asTask(await client().sendMessage(say('hello')));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(first.contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.id.startsWith(`${first.contextId}:`)).toBe(true);
    expect(answerOf(first)).toBe('Turn 1: you said "hello"');
    expect(textOf(first.status?.message?.parts)).toBe('Turn 1: you said "hello"');
    expect(first.status?.message?.role).toBe(Role.ROLE_AGENT);

    const second = asTask(await client().sendMessage(say('again', first)));
    expect(second.contextId).toBe(first.contextId);
    expect(answerOf(second)).toBe('Turn 2: you said "again"');
    expect(second.history.map((m) => [m.role, textOf(m.parts)])).toEqual([
      [Role.ROLE_USER, 'hello'],
      [Role.ROLE_AGENT, 'Turn 1: you said "hello"'],
      [Role.ROLE_USER, 'again'],
      [Role.ROLE_AGENT, 'Turn 2: you said "again"'],
    ]);
  });

  it('streams the task, the answer as it grows, the artifact and the final state', async () => {
    const first = asTask(await client().sendMessage(say('before streaming')));
    const events: StreamResponse[] = [];
    for await (const event of client().sendMessageStream(say('stream please', first))) events.push(event);
    const cases = events.map((e) => e.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases.at(-2)).toBe('artifactUpdate');
    expect(cases.at(-1)).toBe('statusUpdate');
    const updates = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value] : []));
    const growing = updates
      .filter((u) => u.status?.state === TaskState.TASK_STATE_WORKING && u.status.message)
      .map((u) => textOf(u.status!.message!.parts));
    expect(growing.length).toBeGreaterThan(2);
    expect(growing.at(-1)).toBe('Turn 2: you said "stream please"');
    const last = updates.at(-1)!;
    expect(last.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(last.contextId).toBe(first.contextId);
    const artifact = events.at(-2)!.payload as {
      $case: 'artifactUpdate';
      value: { artifact?: { parts: { content?: { $case: string; value: unknown } }[] } };
    };
    expect(textOf(artifact.value.artifact?.parts)).toBe('Turn 2: you said "stream please"');
  });

  it('gets a task by id, with its history', async () => {
    const sent = asTask(await client().sendMessage(say('remember me')));
    const got = await client().getTask({ tenant: '', id: sent.id, historyLength: 2 });
    expect(got.id).toBe(sent.id);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(got)).toBe('Turn 1: you said "remember me"');
    expect(got.history.map((m) => textOf(m.parts))).toEqual(['remember me', 'Turn 1: you said "remember me"']);
    await expect(
      client().getTask({ tenant: '', id: `${sent.contextId}:${crypto.randomUUID()}` }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('cancels a running task', async () => {
    const started = asTask(await slowClient().sendMessage(say('take your time', undefined, true)));
    expect(started.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const canceled = await slowClient().cancelTask({ tenant: '', id: started.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await slowClient().getTask({ tenant: '', id: started.id })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
  });
}

describe('@a2a-js/sdk v1.0 client (ClientFactory)', () => {
  let agent: Client;
  let slow: Client;
  beforeAll(async () => {
    // The card path is resolved relative to the base URL: a trailing slash keeps the assistant's path.
    agent = await a2aClientFactory(server.apiKey).createFromUrl(`${server.url}/a2a/agent/`);
    slow = await a2aClientFactory(server.apiKey).createFromUrl(
      `${server.url}/.well-known/agent-card.json?assistant_id=slow`,
      '',
    );
  });

  it('reads the agent card and picks the v1.0 JSON-RPC interface', async () => {
    expect(agent.protocolVersion).toBe('1.0');
    const card = await agent.getAgentCard();
    expect(card.name).toBe('agent');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${server.url}/a2a/${AGENT_ID}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
  });

  conversationTests(
    () => agent,
    () => slow,
  );

  it('gets a clear error for text to an assistant without messages', async () => {
    const counter = await a2aClientFactory(server.apiKey).createFromUrl(`${server.url}/a2a/counter/`);
    const sending = counter.sendMessage(say('count this'));
    await expect(sending).rejects.toBeInstanceOf(RequestMalformedError);
    await expect(sending).rejects.toThrow(/no "messages" key/);
  });
});

describe('@a2a-js/sdk v0.3 JSON-RPC transport (compat)', () => {
  const legacyClient = async (assistant: string) => {
    const card = (await (
      await fetch(`${server.url}/a2a/${assistant}/.well-known/agent-card.json`)
    ).json()) as AgentCard & { url: string };
    return new Client(new LegacyJsonRpcTransport({ endpoint: card.url, fetchImpl: apiKeyFetch(server.apiKey) }), card);
  };
  let agent: Client;
  let slow: Client;
  beforeAll(async () => {
    [agent, slow] = await Promise.all([legacyClient('agent'), legacyClient('slow')]);
  });

  it('speaks protocol 0.3', () => {
    expect(agent.protocolVersion).toBe('0.3');
  });

  conversationTests(
    () => agent,
    () => slow,
  );
});

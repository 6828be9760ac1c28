// The A2A endpoint and agent cards of a real agent server process, over plain HTTP: send, stream,
// get and cancel in both protocol versions' names, conversations across messages, interrupts,
// failures, and every JSON-RPC error the endpoint gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../support/agentServer.ts';

const fixture = (name: string) => `${join(import.meta.dirname, 'fixtures', name)}:graph`;
const AGENT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca'; // UUIDv5 of "agent"
const UUID = /^[0-9a-f-]{36}$/;

let server: AgentServer;
beforeAll(async () => {
  const configFile = writeAgentConfig({
    graphs: {
      agent: { path: exampleGraph('chatAgent'), description: 'A chat agent' },
      counter: exampleGraph('counterGraph'),
      slow: fixture('slowGraph.ts'),
      approval: fixture('approvalGraph.ts'),
      failing: fixture('a2aFailingGraph.ts'),
    },
  });
  server = await startAgentServer('a2a', { configFile });
});
afterAll(() => server?.stop());

let nextId = 1;
async function rpc(
  assistant: string,
  method: string,
  params: unknown,
  options: { id?: string | number; headers?: Record<string, string>; metadata?: unknown } = {},
) {
  const id = options.id ?? nextId++;
  const res = await fetch(`${server.url}/a2a/${assistant}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...server.headers, ...options.headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params,
      ...(options.metadata ? { metadata: options.metadata } : {}),
    }),
  });
  const body = (await res.json()) as any;
  if (res.status === 200) expect(body).toMatchObject({ jsonrpc: '2.0', id });
  return { status: res.status, body };
}

const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  role: 'user',
  messageId: crypto.randomUUID(),
  parts: [{ kind: 'text', text }],
  ...extra,
});

/** message/send's result, failing the test on a JSON-RPC error. */
async function send(
  assistant: string,
  message: unknown,
  configuration?: unknown,
  options: { metadata?: unknown } = {},
) {
  const { body } = await rpc(
    assistant,
    'message/send',
    { message, ...(configuration ? { configuration } : {}) },
    options,
  );
  expect(body.error).toBeUndefined();
  return body.result;
}

/** Every SSE event of a message/stream (or SendStreamingMessage) call, parsed. */
async function stream(assistant: string, method: string, params: unknown, id: string | number) {
  const res = await fetch(`${server.url}/a2a/${assistant}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...server.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data:'))
    .map((frame) => {
      expect(frame).toMatch(/^event: message\n/);
      return JSON.parse(
        frame
          .split('\n')
          .find((line) => line.startsWith('data: '))!
          .slice(6),
      );
    });
}

const textOf = (parts: { text?: string }[] | undefined) => (parts ?? []).map((p) => p.text ?? '').join('');

describe('agent cards', () => {
  it('are served at the well-known path with ?assistant_id, under the endpoint, and by GET on the endpoint', async () => {
    const paths = [
      '/.well-known/agent-card.json?assistant_id=agent',
      `/.well-known/agent-card.json?assistant_id=${AGENT_ID}`,
      '/a2a/agent/.well-known/agent-card.json',
      `/a2a/${AGENT_ID}/.well-known/agent.json`,
      '/a2a/agent',
    ];
    for (const path of paths) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      const card = (await res.json()) as any;
      expect(card).toMatchObject({
        name: 'agent',
        description: 'A chat agent',
        url: `${server.url}/a2a/${AGENT_ID}`,
        protocolVersion: '0.3.0',
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true },
        defaultInputModes: ['application/json', 'text/plain'],
        defaultOutputModes: ['application/json', 'text/plain'],
      });
      expect(card.supportedInterfaces).toContainEqual({
        url: `${server.url}/a2a/${AGENT_ID}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      });
      expect(card.skills[0]).toMatchObject({
        id: `${AGENT_ID}-main`,
        metadata: { inputSchema: { supportsA2A: true } },
      });
      expect(card.version).toBe(((await (await fetch(`${server.url}/info`)).json()) as any).version);
    }
  });

  it('name the public URL a proxy reports', async () => {
    const res = await fetch(`${server.url}/a2a/agent/.well-known/agent-card.json`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' },
    });
    expect(((await res.json()) as any).url).toBe(`https://agents.example.com/a2a/${AGENT_ID}`);
  });

  it('say clearly when the assistant is unknown or not named', async () => {
    const unknown = await fetch(`${server.url}/.well-known/agent-card.json?assistant_id=nobody`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: -32602, message: 'Assistant "nobody" not found' } });
    expect((await fetch(`${server.url}/a2a/nobody/.well-known/agent-card.json`)).status).toBe(404);
    const unnamed = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(unnamed.status).toBe(400);
    expect(((await unnamed.json()) as any).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('assistant_id is required'),
    });
  });

  it('say whether the assistant takes text', async () => {
    const card = (await (await fetch(`${server.url}/a2a/counter/.well-known/agent-card.json`)).json()) as any;
    expect(card.skills[0].metadata.inputSchema).toEqual({
      required: [],
      properties: { count: {} },
      supportsA2A: false,
    });
  });
});

describe('message/send', () => {
  it('starts a conversation, returning its contextId and taskId, and the answer in the artifacts and the status', async () => {
    const task = await send('agent', userMessage('hello'));
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(task.contextId).toMatch(UUID);
    expect(task.id).toMatch(new RegExp(`^${task.contextId}:[0-9a-f-]{36}$`));
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]).toMatchObject({
      name: 'Assistant Response',
      parts: [{ kind: 'text', text: 'Turn 1: you said "hello"' }],
    });
    expect(task.status.message).toMatchObject({
      kind: 'message',
      role: 'agent',
      parts: [{ kind: 'text', text: 'Turn 1: you said "hello"' }],
    });
    expect(task.history.map((m: any) => [m.role, textOf(m.parts)])).toEqual([
      ['user', 'hello'],
      ['agent', 'Turn 1: you said "hello"'],
    ]);
  });

  it('continues the conversation when later messages send contextId and taskId', async () => {
    const first = await send('agent', userMessage('one'));
    const second = await send('agent', userMessage('two', { contextId: first.contextId, taskId: first.id }));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(textOf(second.artifacts[0].parts)).toBe('Turn 2: you said "two"');
    expect(second.history).toHaveLength(4);
    // contextId alone is enough, and historyLength trims the history.
    const third = await send('agent', userMessage('three', { contextId: first.contextId }), { historyLength: 1 });
    expect(textOf(third.artifacts[0].parts)).toBe('Turn 3: you said "three"');
    expect(third.history.map((m: any) => textOf(m.parts))).toEqual(['Turn 3: you said "three"']);
  });

  it('answers the v1.0 name SendMessage in v1.0 shapes', async () => {
    const { body } = await rpc(
      'agent',
      'SendMessage',
      { message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), parts: [{ text: 'v1 here' }] } },
      { headers: { 'a2a-version': '1.0' } },
    );
    const task = body.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts).toEqual([{ text: 'Turn 1: you said "v1 here"' }]);
    expect(task.history.map((m: any) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
    expect(task.kind).toBeUndefined();
  });

  it('makes the contextId the trace’s thread id, unless the request’s metadata names one', async () => {
    const task = await send('agent', userMessage('traced'));
    const runId = task.id.split(':')[1];
    const run = (await (
      await fetch(`${server.url}/threads/${task.contextId}/runs/${runId}`, { headers: server.headers })
    ).json()) as any;
    expect(run.metadata.thread_id).toBe(task.contextId);
    const shared = crypto.randomUUID();
    const other = await send('agent', userMessage('traced too'), undefined, { metadata: { thread_id: shared } });
    const otherRun = (await (
      await fetch(`${server.url}/threads/${other.contextId}/runs/${other.id.split(':')[1]}`, {
        headers: server.headers,
      })
    ).json()) as any;
    expect(otherRun.metadata.thread_id).toBe(shared);
  });

  it('merges data parts into the input of an assistant without messages', async () => {
    const task = await send('counter', { role: 'user', messageId: 'm', parts: [{ kind: 'data', data: { count: 2 } }] });
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0].parts).toEqual([{ kind: 'data', data: { count: 3 } }]);
  });

  it('reports a failing assistant as a failed task with the error', async () => {
    const task = await send('failing', userMessage('break'));
    expect(task.status.state).toBe('failed');
    expect(textOf(task.status.message.parts)).toBe('Error executing assistant: the tool broke');
    expect(task.history.map((m: any) => textOf(m.parts))).toContain('break');
  });

  it('asks for input when the assistant interrupts, and resumes with the answer', async () => {
    const asked = await send('approval', userMessage('may I?'));
    expect(asked.status.state).toBe('input-required');
    expect(asked.artifacts).toEqual([
      expect.objectContaining({
        name: 'Interrupt',
        parts: [{ kind: 'data', data: { id: expect.any(String), value: { question: 'approve?' } } }],
      }),
    ]);
    const got = await rpc('approval', 'tasks/get', { id: asked.id });
    expect(got.body.result.status.state).toBe('input-required');
    const resumed = await send('approval', userMessage('yes', { contextId: asked.contextId, taskId: asked.id }));
    expect(resumed.status.state).toBe('completed');
    expect(textOf(resumed.artifacts[0].parts)).toBe('answer was yes');
    expect((await rpc('approval', 'tasks/get', { id: asked.id })).body.result.status.state).toBe('completed');
  });
});

describe('message/stream', () => {
  it('streams the task, working updates with the answer so far, the artifact and a final update, each echoing the request id', async () => {
    const events = await stream('agent', 'message/stream', { message: userMessage('stream me') }, 'req-42');
    expect(events.every((e) => e.jsonrpc === '2.0' && e.id === 'req-42' && e.result)).toBe(true);
    const results = events.map((e) => e.result);
    expect(results[0]).toMatchObject({
      kind: 'task',
      status: { state: 'submitted' },
      history: [{ role: 'user', parts: [{ kind: 'text', text: 'stream me' }] }],
    });
    expect(results[1]).toMatchObject({ kind: 'status-update', status: { state: 'working' }, final: false });
    const partials = results
      .filter((r) => r.kind === 'status-update' && r.status.message)
      .slice(0, -1)
      .map((r) => textOf(r.status.message.parts));
    expect(partials.length).toBeGreaterThan(2);
    expect(partials.at(-1)).toBe('Turn 1: you said "stream me"');
    for (let i = 1; i < partials.length; i++) expect(partials[i]!.startsWith(partials[i - 1]!)).toBe(true); // cumulative
    expect(results.at(-2)).toMatchObject({
      kind: 'artifact-update',
      artifact: { name: 'Assistant Response', parts: [{ kind: 'text', text: 'Turn 1: you said "stream me"' }] },
    });
    expect(results.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed', message: { parts: [{ kind: 'text', text: 'Turn 1: you said "stream me"' }] } },
    });
    const taskId = results[0].id;
    expect(results.every((r) => (r.kind === 'task' ? r.id : r.taskId) === taskId)).toBe(true);
  });

  it('streams v1.0 StreamResponses for SendStreamingMessage, echoing a numeric id', async () => {
    const events = await stream(
      'agent',
      'SendStreamingMessage',
      { message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), parts: [{ text: 'v1 stream' }] } },
      77,
    );
    expect(events.every((e) => e.id === 77)).toBe(true);
    const results = events.map((e) => e.result);
    expect(Object.keys(results[0])).toEqual(['task']);
    expect(results[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(results.at(-2).artifactUpdate.artifact.parts).toEqual([{ text: 'Turn 1: you said "v1 stream"' }]);
    expect(results.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(results.at(-1).statusUpdate.final).toBeUndefined();
  });

  it('answers bad input with a JSON-RPC error before any event', async () => {
    const res = await fetch(`${server.url}/a2a/counter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...server.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'message/stream', params: { message: userMessage('x') } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('"messages"'),
    });
  });
});

describe('tasks/get and tasks/cancel', () => {
  it('get a finished task with its answer, history trimmed by historyLength', async () => {
    const first = await send('agent', userMessage('first'));
    await send('agent', userMessage('second', { contextId: first.contextId }));
    const got = (await rpc('agent', 'tasks/get', { id: first.id, historyLength: 2 })).body.result;
    expect(got).toMatchObject({
      kind: 'task',
      id: first.id,
      contextId: first.contextId,
      status: { state: 'completed' },
    });
    expect(textOf(got.artifacts[0].parts)).toBe('Turn 1: you said "first"'); // the task's own answer, not the thread's latest
    expect(got.history.map((m: any) => textOf(m.parts))).toEqual(['first', 'Turn 1: you said "first"']);
    const v1 = (await rpc('agent', 'GetTask', { id: first.id })).body.result;
    expect(v1.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuse unknown tasks (-32001), tasks of another assistant, and too long a history (-32602)', async () => {
    const task = await send('agent', userMessage('mine'));
    expect(
      (await rpc('agent', 'tasks/get', { id: `${task.contextId}:${crypto.randomUUID()}` })).body.error,
    ).toMatchObject({ code: -32001, message: expect.stringContaining('Task not found') });
    expect((await rpc('agent', 'tasks/get', { id: 'not-a-task' })).body.error.code).toBe(-32001);
    expect((await rpc('approval', 'tasks/get', { id: task.id })).body.error.code).toBe(-32001);
    expect((await rpc('agent', 'tasks/get', { id: task.id, historyLength: 11 })).body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('historyLength'),
    });
    expect((await rpc('agent', 'tasks/get', {})).body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('id'),
    });
  });

  it('cancel a running task, which then reads as canceled; a finished one is left as it was', async () => {
    const started = await send('slow', userMessage('take your time'), { blocking: false });
    expect(started.status.state).toBe('submitted');
    const busy = await rpc('slow', 'message/send', {
      message: userMessage('me too', { contextId: started.contextId }),
    });
    expect(busy.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Failed to create run: Thread is already running'),
    });
    const canceled = (await rpc('slow', 'tasks/cancel', { id: started.id })).body.result;
    expect(canceled).toMatchObject({ id: started.id, status: { state: 'canceled' } });
    expect((await rpc('slow', 'tasks/get', { id: started.id })).body.result.status.state).toBe('canceled');

    const done = await send('agent', userMessage('finished'));
    const again = (await rpc('agent', 'CancelTask', { id: done.id })).body.result;
    expect(again.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(again.status.message.parts)).toBe('Task cancel acknowledged (was: completed)');
  });
});

describe('errors', () => {
  const post = async (assistant: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/a2a/${assistant}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.headers, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('are JSON-RPC error objects with HTTP 200 and the standard codes', async () => {
    const cases: [string, string, number, string][] = [
      ['agent', '{"jsonrpc":"2.0","id":1,', -32700, 'not valid JSON'],
      ['agent', '{"jsonrpc":"2.0","id":1}', -32600, '"method"'],
      ['agent', '{"jsonrpc":"2.0","id":1,"method":"message/shout"}', -32601, 'message/shout'],
      [
        'agent',
        '{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{}}',
        -32601,
        'not supported',
      ],
      [
        'nobody',
        '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}',
        -32602,
        'assistant "nobody" not found',
      ],
      [
        'counter',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage('x') } }),
        -32602,
        'no "messages" key',
      ],
      [
        'agent',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: userMessage('x', { contextId: 'session-42' }) },
        }),
        -32602,
        'Invalid thread ID',
      ],
      [
        'agent',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { role: 'user', parts: [{ kind: 'text', text: 'x' }] } },
        }),
        -32602,
        'messageId',
      ],
      [
        'agent',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: { role: 'user', messageId: 'm', parts: [{ kind: 'file', file: { uri: 'https://x/y.pdf' } }] },
          },
        }),
        -32005,
        'file parts',
      ],
      [
        'agent',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: userMessage('x') },
          metadata: { thread_id: 42 },
        }),
        -32602,
        'metadata.thread_id',
      ],
    ];
    for (const [assistant, body, code, message] of cases) {
      const res = await post(assistant, body);
      expect(res.status, body).toBe(200);
      expect(res.body.error, body).toMatchObject({ code, message: expect.stringContaining(message) });
      expect(res.body.jsonrpc).toBe('2.0');
    }
  });

  it('refuse an unsupported A2A-Version with -32009', async () => {
    const res = await post('agent', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }), {
      'a2a-version': '9.0',
    });
    expect(res.body.error.code).toBe(-32009);
  });

  it('answer an Accept header that rules out the answer with HTTP 400', async () => {
    const json = await post(
      'agent',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage('x') } }),
      { accept: 'text/html' },
    );
    expect(json.status).toBe(400);
    expect(json.body.error).toContain('application/json');
    const sse = await post(
      'agent',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: userMessage('x') } }),
      { accept: 'application/json' },
    );
    expect(sse.status).toBe(400);
    expect(sse.body.error).toContain('text/event-stream');
  });
});

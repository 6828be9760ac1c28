// Between A2A and LangGraph, without a server: incoming messages to run input or resume
// commands, thread messages to A2A history, task ids, and runs to tasks.
import { describe, expect, it } from 'vitest';
import { thrownA2aError as thrown } from '../../support/a2aTesting.ts';
import {
  compositeTaskId,
  parseTaskId,
  splitInterrupts,
  taskIdsOf,
  taskOfRun,
  taskState,
} from '../../../services/agent-server/a2a/a2aTasks.ts';
import {
  a2aHistory,
  answerMessage,
  partialAiMessage,
  readIncomingMessage,
  runRequestFor,
} from '../../../services/agent-server/a2a/messageMapping.ts';

const CONTEXT = '6f1c2b0e-9d3a-4c55-8a57-0e4f3c2d1b10';
const RUN = '01a1ff79-f372-7403-991d-f55c873abb6c';
const chat = { assistantName: 'agent', hasMessagesKey: true, threadInterrupted: false };

describe('readIncomingMessage', () => {
  it('reads a v0.3 message: text parts joined, data parts kept, ids', () => {
    const message = readIncomingMessage({
      kind: 'message',
      role: 'user',
      messageId: 'm1',
      contextId: CONTEXT,
      parts: [
        { kind: 'text', text: 'hello' },
        { kind: 'data', data: { topic: 'x' } },
        { kind: 'text', text: 'world' },
      ],
    });
    expect(message).toMatchObject({
      messageId: 'm1',
      role: 'user',
      text: 'hello\nworld',
      data: [{ topic: 'x' }],
      contextId: CONTEXT,
      taskId: undefined,
    });
    expect(message.parts).toHaveLength(3);
  });

  it('reads a v1.0 message: ROLE_* roles, oneof parts, empty ids as absent', () => {
    const message = readIncomingMessage({
      role: 'ROLE_USER',
      messageId: 'm1',
      contextId: '',
      parts: [{ text: 'hi' }, { data: { n: 1 } }],
    });
    expect(message).toMatchObject({ role: 'user', text: 'hi', data: [{ n: 1 }], contextId: undefined });
    expect(message.parts).toEqual([
      { kind: 'text', text: 'hi' },
      { kind: 'data', data: { n: 1 } },
    ]);
    expect(readIncomingMessage({ role: 'ROLE_AGENT', messageId: 'm', parts: [{ text: 'x' }] }).role).toBe('agent');
  });

  it('takes a resume from a data part or message.command', () => {
    expect(
      readIncomingMessage({ role: 'user', messageId: 'm', parts: [{ kind: 'data', data: { resume: 'yes' } }] }),
    ).toMatchObject({ resume: { value: 'yes' }, data: [] });
    expect(
      readIncomingMessage({
        role: 'user',
        messageId: 'm',
        parts: [{ kind: 'text', text: 'x' }],
        command: { resume: { ok: 1 } },
      }).resume,
    ).toEqual({ value: { ok: 1 } });
  });

  it('refuses bad messages with -32602 naming the field, and file parts with -32005', () => {
    expect(thrown(() => readIncomingMessage(undefined))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.message is required'),
    });
    expect(thrown(() => readIncomingMessage({ role: 'user', parts: [{ kind: 'text', text: 'x' }] }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('messageId'),
    });
    expect(thrown(() => readIncomingMessage({ role: 'user', messageId: 'm', parts: [] }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('parts must not be empty'),
    });
    expect(thrown(() => readIncomingMessage({ role: 'robot', messageId: 'm', parts: [{ text: 'x' }] }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('"robot"'),
    });
    expect(
      thrown(() => readIncomingMessage({ role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 3 }] })),
    ).toMatchObject({ code: -32602, message: expect.stringContaining('parts[0].text') });
    expect(
      thrown(() => readIncomingMessage({ role: 'user', messageId: 'm', parts: [{ kind: 'data', data: [1] }] })),
    ).toMatchObject({ code: -32602 });
    expect(thrown(() => readIncomingMessage({ role: 'user', messageId: 'm', parts: [{ hello: 1 }] }))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('no text or data'),
    });
    expect(
      thrown(() =>
        readIncomingMessage({ role: 'user', messageId: 'm', parts: [{ kind: 'file', file: { uri: 'http://x' } }] }),
      ),
    ).toMatchObject({ code: -32005 });
    expect(
      thrown(() => readIncomingMessage({ role: 'ROLE_USER', messageId: 'm', parts: [{ url: 'http://x' }] })),
    ).toMatchObject({ code: -32005 });
  });
});

describe('runRequestFor', () => {
  const message = (parts: unknown[], role = 'user') => readIncomingMessage({ role, messageId: 'm1', parts });

  it('turns text into one new message of the input, with the A2A message id, and merges data', () => {
    expect(
      runRequestFor(
        message([
          { kind: 'text', text: 'hi' },
          { kind: 'data', data: { lang: 'fr' } },
        ]),
        chat,
      ),
    ).toEqual({
      input: { lang: 'fr', messages: [{ type: 'human', content: 'hi', id: 'm1' }] },
    });
    expect(runRequestFor(message([{ kind: 'text', text: 'said' }], 'agent'), chat).input?.messages).toEqual([
      { type: 'ai', content: 'said', id: 'm1' },
    ]);
  });

  it('refuses text for an assistant whose state has no messages key, but takes data', () => {
    const counter = { assistantName: 'counter', hasMessagesKey: false, threadInterrupted: false };
    expect(thrown(() => runRequestFor(message([{ kind: 'text', text: 'hi' }]), counter))).toMatchObject({
      code: -32602,
      message: expect.stringContaining('"messages"'),
    });
    expect(runRequestFor(message([{ kind: 'data', data: { count: 2 } }]), counter)).toEqual({ input: { count: 2 } });
  });

  it('resumes an interrupted thread with the text, or with an explicit resume', () => {
    expect(runRequestFor(message([{ kind: 'text', text: 'yes' }]), { ...chat, threadInterrupted: true })).toEqual({
      command: { resume: 'yes' },
    });
    expect(
      runRequestFor(message([{ kind: 'data', data: { resume: { approved: true } } }]), {
        ...chat,
        threadInterrupted: true,
      }),
    ).toEqual({ command: { resume: { approved: true } } });
  });
});

describe('thread messages as A2A', () => {
  const messages = [
    { type: 'system', content: 'be nice', id: 's' },
    { type: 'human', content: 'weather?', id: 'h1' },
    { type: 'ai', content: '', id: 'a1', tool_calls: [{ name: 'weather', args: {}, id: 'tc1' }] },
    { type: 'tool', content: 'sunny', tool_call_id: 'tc1', name: 'weather', id: 't1' },
    {
      type: 'ai',
      content: [
        { type: 'text', text: 'It is ' },
        { type: 'text', text: 'sunny' },
      ],
    },
  ];

  it('maps human to user and AI and tools to agent, tool calls and results as data, skipping system messages', () => {
    const history = a2aHistory(messages, CONTEXT, 'task');
    expect(history.map((m) => [m.role, m.parts])).toEqual([
      ['user', [{ kind: 'text', text: 'weather?' }]],
      ['agent', [{ kind: 'data', data: { tool_calls: [{ name: 'weather', args: {}, id: 'tc1' }] } }]],
      ['agent', [{ kind: 'data', data: { tool_result: { tool_call_id: 'tc1', name: 'weather', content: 'sunny' } } }]],
      ['agent', [{ kind: 'text', text: 'It is sunny' }]],
    ]);
    expect(history.map((m) => m.messageId)).toEqual(['h1', 'a1', 't1', 'task:4']);
    expect(history.every((m) => m.kind === 'message' && m.contextId === CONTEXT && m.taskId === 'task')).toBe(true);
  });

  it('finds the answer to the last human message only', () => {
    expect(answerMessage(messages)).toEqual({ id: undefined, text: 'It is sunny' });
    expect(answerMessage([...messages, { type: 'human', content: 'and tomorrow?', id: 'h2' }])).toBeUndefined();
  });

  it('reads AI messages of the stream and ignores the others', () => {
    expect(partialAiMessage([{ type: 'AIMessageChunk', content: 'Tur', id: 'a' }])).toEqual({ id: 'a', text: 'Tur' });
    expect(partialAiMessage([{ type: 'human', content: 'x', id: 'h' }])).toBeUndefined();
  });
});

describe('task ids', () => {
  it('are {contextId}:{runId}; a contextId param names the thread; bare run ids have none', () => {
    const id = compositeTaskId(CONTEXT, RUN);
    expect(parseTaskId(id)).toEqual({ contextId: CONTEXT, runId: RUN });
    expect(parseTaskId(RUN)).toEqual({ contextId: undefined, runId: RUN });
    const other = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    expect(parseTaskId(id, other)).toEqual({ contextId: other, runId: RUN });
  });

  it('that are not ours are not found (-32001)', () => {
    for (const id of ['abc', `${CONTEXT}:nope`, `x:${RUN}`, `${CONTEXT}:${RUN}:more`])
      expect(thrown(() => parseTaskId(id))).toMatchObject({ code: -32001 });
  });
});

describe('taskOfRun', () => {
  const ids = taskIdsOf(CONTEXT, RUN, 'assistant-1');
  const values = {
    messages: [
      { type: 'human', content: 'hi', id: 'h1' },
      { type: 'ai', content: 'Hello!', id: 'a1' },
    ],
  };

  it('maps run statuses to task states, an interrupt to input-required', () => {
    expect(
      ['pending', 'running', 'success', 'interrupted', 'error', 'timeout'].map((s) => taskState(s as never, false)),
    ).toEqual(['submitted', 'working', 'completed', 'canceled', 'failed', 'failed']);
    expect(taskState('success', true)).toBe('input-required');
    expect(taskState('running', true)).toBe('working');
  });

  it('puts the answer in an artifact and in the status message, and the thread in the history', () => {
    const task = taskOfRun(ids, { status: 'success', values, interrupts: [] }, { timestamp: 'now' });
    expect(task).toMatchObject({
      kind: 'task',
      id: `${CONTEXT}:${RUN}`,
      contextId: CONTEXT,
      status: { state: 'completed', timestamp: 'now' },
    });
    expect(task.artifacts).toEqual([
      {
        artifactId: `${RUN}-response`,
        name: 'Assistant Response',
        description: 'Response from assistant assistant-1',
        parts: [{ kind: 'text', text: 'Hello!' }],
      },
    ]);
    expect(task.status.message).toMatchObject({
      role: 'agent',
      messageId: 'a1',
      parts: [{ kind: 'text', text: 'Hello!' }],
    });
    expect(task.history?.map((m) => m.role)).toEqual(['user', 'agent']);
    expect(
      taskOfRun(
        ids,
        { status: 'success', values, interrupts: [] },
        { timestamp: 'now', historyLength: 1 },
      ).history?.map((m) => m.messageId),
    ).toEqual(['a1']);
  });

  it('answers with the values as data for an assistant without messages', () => {
    const task = taskOfRun(
      ids,
      { status: 'success', values: { count: 3 }, interrupts: [] },
      { timestamp: 'now', fallbackHistory: [] },
    );
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'data', data: { count: 3 } }]);
  });

  it('reports interrupts as input-required with an Interrupt artifact', () => {
    const split = splitInterrupts({ ...values, __interrupt__: [{ id: 'i1', value: { question: 'approve?' } }] });
    expect(split.values).toEqual(values);
    const task = taskOfRun(ids, { status: 'success', ...split }, { timestamp: 'now' });
    expect(task.status.state).toBe('input-required');
    expect(task.artifacts).toEqual([
      expect.objectContaining({
        name: 'Interrupt',
        parts: [{ kind: 'data', data: { id: 'i1', value: { question: 'approve?' } } }],
      }),
    ]);
    expect(task.status.message?.parts).toEqual([{ kind: 'text', text: '{"question":"approve?"}' }]);
  });

  it('reports failures with the error, and falls back to the given history', () => {
    const echoed = {
      kind: 'message' as const,
      role: 'user' as const,
      messageId: 'h1',
      parts: [{ kind: 'text' as const, text: 'hi' }],
    };
    const task = taskOfRun(
      ids,
      { status: 'error', values: null, interrupts: [], error: 'boom' },
      { timestamp: 'now', fallbackHistory: [echoed] },
    );
    expect(task.status).toMatchObject({
      state: 'failed',
      message: { parts: [{ kind: 'text', text: 'Error executing assistant: boom' }] },
    });
    expect(task.artifacts).toBeUndefined();
    expect(task.history).toEqual([echoed]);
  });
});

// The A2A endpoint's protocol layer, without a server: the JSON-RPC envelope and its errors, the
// method names of both protocol versions, the Accept rule, and the v1.0 shapes of v0.3 objects.
import { describe, expect, it } from 'vitest';
import { thrownA2aError as thrown } from '../../support/a2aTesting.ts';
import { a2aMethod, checkA2aVersion } from '../../../services/agent-server/a2a/a2aMethods.ts';
import { accepts } from '../../../platform/http/contentNegotiation.ts';
import type { Task } from '../../../services/agent-server/a2a/a2aTypes.ts';
import {
  A2aError,
  jsonRpcError,
  jsonRpcResult,
  parseJsonRpcRequest,
} from '../../../services/agent-server/a2a/jsonRpc.ts';
import { sendResult, streamResult, taskResult } from '../../../services/agent-server/a2a/v1Dialect.ts';

const errorOf = (body: string) => {
  const parsed = parseJsonRpcRequest(body);
  if (parsed.ok) throw new Error('expected an error');
  return { id: parsed.id, code: parsed.error.code, message: parsed.error.message };
};

describe('parseJsonRpcRequest', () => {
  it('reads id, method, params and the envelope metadata', () => {
    const parsed = parseJsonRpcRequest(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'abc',
        method: 'message/send',
        params: { a: 1 },
        metadata: { thread_id: 't' },
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      request: { id: 'abc', method: 'message/send', params: { a: 1 }, metadata: { thread_id: 't' } },
    });
    const bare = parseJsonRpcRequest('{"jsonrpc":"2.0","id":7,"method":"tasks/get"}');
    expect(bare).toEqual({ ok: true, request: { id: 7, method: 'tasks/get', params: {}, metadata: {} } });
  });

  it('answers bad JSON with -32700 and id null', () => {
    expect(errorOf('{not json')).toMatchObject({
      id: null,
      code: -32700,
      message: expect.stringContaining('not valid JSON'),
    });
    expect(errorOf('')).toMatchObject({ code: -32700, message: expect.stringContaining('empty') });
  });

  it('answers malformed requests with -32600, echoing the id when it can be read', () => {
    expect(errorOf('[{"jsonrpc":"2.0","id":1,"method":"x"}]')).toMatchObject({
      id: null,
      code: -32600,
      message: expect.stringContaining('batch'),
    });
    expect(errorOf('"text"')).toMatchObject({ id: null, code: -32600 });
    expect(errorOf('{"jsonrpc":"1.0","id":3,"method":"x"}')).toMatchObject({
      id: 3,
      code: -32600,
      message: expect.stringContaining('"jsonrpc" must be "2.0"'),
    });
    expect(errorOf('{"jsonrpc":"2.0","id":{"a":1},"method":"x"}')).toMatchObject({
      id: null,
      code: -32600,
      message: expect.stringContaining('"id"'),
    });
    expect(errorOf('{"jsonrpc":"2.0","id":4}')).toMatchObject({
      id: 4,
      code: -32600,
      message: expect.stringContaining('"method"'),
    });
    expect(errorOf('{"jsonrpc":"2.0","id":5,"method":"x","params":[1]}')).toMatchObject({
      id: 5,
      code: -32600,
      message: expect.stringContaining('"params"'),
    });
  });

  it('builds responses and error responses', () => {
    expect(jsonRpcResult('r', { ok: true })).toEqual({ jsonrpc: '2.0', id: 'r', result: { ok: true } });
    expect(jsonRpcError(9, new A2aError(-32001, 'Task not found'))).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32001, message: 'Task not found' },
    });
  });
});

describe('a2aMethod', () => {
  it('knows the v0.3 names and their v1.0 aliases, each with its dialect', () => {
    expect(a2aMethod('message/send')).toEqual({ operation: 'send', dialect: 'v0.3' });
    expect(a2aMethod('SendMessage')).toEqual({ operation: 'send', dialect: 'v1' });
    expect(a2aMethod('message/stream')).toEqual({ operation: 'stream', dialect: 'v0.3' });
    expect(a2aMethod('SendStreamingMessage')).toEqual({ operation: 'stream', dialect: 'v1' });
    expect(a2aMethod('tasks/get').operation).toBe('getTask');
    expect(a2aMethod('GetTask').operation).toBe('getTask');
    expect(a2aMethod('tasks/cancel').operation).toBe('cancelTask');
    expect(a2aMethod('CancelTask').operation).toBe('cancelTask');
  });

  it('refuses unknown and unsupported methods with -32601', () => {
    expect(thrown(() => a2aMethod('message/shout'))).toMatchObject({
      code: -32601,
      message: 'Method not found: "message/shout"',
    });
    expect(thrown(() => a2aMethod('tasks/resubscribe'))).toMatchObject({
      code: -32601,
      message: expect.stringContaining('not supported'),
    });
    expect(thrown(() => a2aMethod('toString'))).toMatchObject({ code: -32601 });
  });

  it('takes A2A-Version 0.3 and 1.x, refuses others with -32009', () => {
    for (const version of [undefined, '', '0.3', '0.3.0', '1.0', '1', '1.1'])
      expect(() => checkA2aVersion(version)).not.toThrow();
    expect(thrown(() => checkA2aVersion('2.0'))).toMatchObject({
      code: -32009,
      message: expect.stringContaining('"2.0"'),
    });
  });
});

describe('accepts', () => {
  it('admits exact types, wildcards and a missing header', () => {
    expect(accepts(undefined, 'application/json')).toBe(true);
    expect(accepts('*/*', 'text/event-stream')).toBe(true);
    expect(accepts('application/json', 'application/json')).toBe(true);
    expect(accepts('text/html, application/*;q=0.8', 'application/json')).toBe(true);
    expect(accepts('text/event-stream', 'application/json')).toBe(false);
    expect(accepts('application/json', 'text/event-stream')).toBe(false);
  });
});

describe('v1.0 shapes', () => {
  const task: Task = {
    kind: 'task',
    id: 'c:r',
    contextId: 'c',
    status: {
      state: 'input-required',
      timestamp: 't',
      message: { kind: 'message', role: 'agent', messageId: 'm2', parts: [{ kind: 'text', text: 'why?' }] },
    },
    artifacts: [{ artifactId: 'a', name: 'Interrupt', parts: [{ kind: 'data', data: { id: 'i', value: 1 } }] }],
    history: [
      {
        kind: 'message',
        role: 'user',
        messageId: 'm1',
        contextId: 'c',
        taskId: 'c:r',
        parts: [{ kind: 'text', text: 'hi' }],
      },
    ],
  };

  it('keeps v0.3 objects as they are for v0.3 names', () => {
    expect(sendResult(task, 'v0.3')).toBe(task);
    expect(taskResult(task, 'v0.3')).toBe(task);
  });

  it('wraps, renames enums and drops kind tags for v1.0 names', () => {
    expect(sendResult(task, 'v1')).toEqual({
      task: {
        id: 'c:r',
        contextId: 'c',
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          timestamp: 't',
          message: { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'why?' }] },
        },
        artifacts: [{ artifactId: 'a', name: 'Interrupt', parts: [{ data: { id: 'i', value: 1 } }] }],
        history: [{ messageId: 'm1', contextId: 'c', taskId: 'c:r', role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
      },
    });
  });

  it('wraps each stream event in its StreamResponse field, without final', () => {
    const status = {
      kind: 'status-update' as const,
      taskId: 'c:r',
      contextId: 'c',
      status: { state: 'completed' as const },
      final: true,
    };
    expect(streamResult(status, 'v1')).toEqual({
      statusUpdate: { taskId: 'c:r', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    expect(streamResult(status, 'v0.3')).toBe(status);
    const artifact = {
      kind: 'artifact-update' as const,
      taskId: 'c:r',
      contextId: 'c',
      artifact: { artifactId: 'a', parts: [{ kind: 'text' as const, text: 'x' }] },
      lastChunk: true,
    };
    expect(streamResult(artifact, 'v1')).toEqual({
      artifactUpdate: {
        taskId: 'c:r',
        contextId: 'c',
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        append: false,
        lastChunk: true,
      },
    });
    expect(streamResult(task, 'v1')).toEqual({ task: taskResult(task, 'v1') });
  });
});

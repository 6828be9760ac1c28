// The agent server's MCP endpoint over plain HTTP (services/agent-server/mcp/): JSON-RPC answers
// in JSON and no session, as LangGraph's stateless endpoint answers; protocol errors (an unknown
// method or tool, a cursor it never gave); refusals as HTTP statuses (Accept, a body that is not
// one JSON-RPC message, an MCP-Protocol-Version it does not speak, GET and DELETE, no key);
// LangGraph's `params.context` reaching the run; `http.disable_mcp`; and an auth module's
// assistants:search filter and its refusals. The official client's flow is test/e2e/mcpClient.test.ts.
import { join } from 'node:path';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';

const fixture = (name: string) => `${join(import.meta.dirname, '..', 'fixtures', `${name}.ts`)}:graph`;
const graphs = {
  agent: exampleGraph('chatAgent'),
  counter: exampleGraph('counterGraph'),
  context_echo: fixture('contextEchoGraph'),
};

let server: AgentServer;
let disabled: AgentServer;
let guarded: AgentServer;

beforeAll(async () => {
  [server, disabled, guarded] = await Promise.all([
    startAgentServer('mcp-endpoint', { configFile: writeAgentConfig({ graphs }) }),
    startAgentServer('mcp-disabled', { configFile: writeAgentConfig({ graphs, http: { disable_mcp: true } }) }),
    startAgentServer('mcp-auth', {
      configFile: writeAgentConfig({
        graphs,
        auth: { path: `${join(import.meta.dirname, '..', 'fixtures', 'mcpAuth.ts')}:auth` },
      }),
    }),
  ]);
});
afterAll(() => Promise.all([server?.stop(), disabled?.stop(), guarded?.stop()]));

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

const JSON_AND_SSE = 'application/json, text/event-stream';

async function post(to: AgentServer, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${to.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...to.headers, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

let ids = 0;
const call = (method: string, params?: unknown) => ({
  jsonrpc: '2.0',
  id: ++ids,
  method,
  ...(params ? { params } : {}),
});
const initialize = (protocolVersion: string) =>
  call('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } });

describe('JSON-RPC over POST /mcp', () => {
  it('initialize: JSON (not a stream), no session, the client’s protocol version if spoken, tools offered', async () => {
    const res = await post(server, initialize('2025-06-18'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: ids,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'LangGraph', version: expect.any(String) },
      },
    });
    const newest = (await post(server, initialize('1999-01-01'))).body.result.protocolVersion;
    expect(newest > '2025-06-18').toBe(true);
  });

  it('ping; a notification is taken (202, no body); an unknown method is a JSON-RPC error', async () => {
    expect((await post(server, call('ping'))).body.result).toEqual({});
    const note = await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect([note.status, note.body]).toEqual([202, null]);
    const unknown = await post(server, call('resources/list'));
    expect(unknown.status).toBe(200);
    expect(unknown.body.error).toMatchObject({ code: -32601 });
  });

  it('tools/list without initialize (stateless): one tool per assistant, in the config’s order', async () => {
    const res = await post(server, call('tools/list'));
    expect(res.body.result.tools.map((t: any) => t.name)).toEqual(['agent', 'counter', 'context_echo']);
    expect(res.body.result.nextCursor).toBeUndefined();
    const cursor = await post(server, call('tools/list', { cursor: 'not-mine' }));
    expect(cursor.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('not-mine') });
  });

  it('tools/call: the run’s final values; LangGraph’s params.context is the run’s context', async () => {
    const res = await post(
      server,
      call('tools/call', { name: 'context_echo', arguments: { question: 'q' }, context: { tenant: 'acme' } }),
    );
    expect(res.body.result).toEqual({
      content: [{ type: 'text', text: JSON.stringify({ question: 'q', context: { tenant: 'acme' } }) }],
      structuredContent: { question: 'q', context: { tenant: 'acme' } },
    });
    const unknown = await post(server, call('tools/call', { name: 'nope', arguments: {} }));
    expect(unknown.body.error).toEqual({ code: -32602, message: 'Unknown tool: nope' });
  });
});

describe('refusals', () => {
  it('an Accept that rules out JSON is a 406; JSON alone, or no Accept, will do', async () => {
    const html = await post(server, call('ping'), { accept: 'text/html' });
    expect([html.status, html.body.error]).toEqual([406, 'NOT_ACCEPTABLE']);
    expect((await post(server, call('ping'), { accept: 'application/json' })).status).toBe(200);
    const bare = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...server.headers },
      body: JSON.stringify(call('ping')),
    });
    expect(bare.status).toBe(200);
  });

  it('a body that is not one JSON-RPC message is a 422 (a batch too: MCP no longer batches)', async () => {
    for (const body of [{ hello: 1 }, { jsonrpc: '1.0', id: 1, method: 'ping' }, [call('ping'), call('ping')]]) {
      const res = await post(server, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
  });

  it('the route’s schema takes exactly the messages the MCP SDK takes: what it documents is never a 400 from the SDK', async () => {
    const big = 2 ** 60;
    const bodies = [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 'p', other: [1] } } },
      { jsonrpc: '2.0', id: 1, result: { _meta: null } },
      { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 1.5 } } },
      { jsonrpc: '2.0', error: { code: -32600, message: 'no', data: [null] } },
      { jsonrpc: '2.0', id: 'x', error: { code: big, message: 'too big a code' } },
      { jsonrpc: '2.0', id: big, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/x', params: { _meta: { progressToken: big } } },
      { jsonrpc: '2.0', method: 'notifications/x', params: { _meta: { 'io.modelcontextprotocol/related-task': 1 } } },
      {
        jsonrpc: '2.0',
        method: 'notifications/x',
        params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', more: true } } },
      },
      { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } },
    ];
    for (const body of bodies) {
      const res = await post(server, body);
      const sdkTakes = JSONRPCMessageSchema.safeParse(body).success;
      expect(res.status, JSON.stringify([body, res.body])).toBe(
        sdkTakes ? ('method' in body && 'id' in body ? 200 : 202) : 422,
      );
    }
  });

  it('an MCP-Protocol-Version it does not speak is a 400 naming it', async () => {
    const res = await post(server, call('tools/list'), { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'BAD_REQUEST', detail: expect.stringContaining('1999-01-01') });
  });

  it('GET and DELETE are a 405 naming POST (no stream to open, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...server.headers },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('POST');
    }
  });

  it('without a key, or with a wrong one, a 401', async () => {
    const none = await post({ ...server, headers: {} }, call('tools/list'));
    expect([none.status, none.body.error]).toEqual([401, 'MISSING_API_KEY']);
    const wrong = await post(server, call('tools/list'), { 'x-api-key': 'lsk_not-a-key-of-anyone' });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'INVALID_API_KEY']);
  });
});

describe('http.disable_mcp', () => {
  it('removes the endpoint, and /info says so (it is on by default)', async () => {
    expect((await post(disabled, call('tools/list'))).status).toBe(404);
    expect(((await (await fetch(`${disabled.url}/info`)).json()) as any).flags.mcp).toBe(false);
    expect(((await (await fetch(`${server.url}/info`)).json()) as any).flags.mcp).toBe(true);
  });
});

describe('an auth module', () => {
  const as = (user: string) => ({ ...guarded, headers: { authorization: `Bearer token-${user}` } });

  it('authenticates the endpoint: no token, a 401', async () => {
    expect((await post(guarded, call('tools/list'))).status).toBe(401);
  });

  it('its assistants:search filter picks the tools; its refusal is a JSON-RPC error saying why', async () => {
    const names = async (user: string) =>
      (await post(as(user), call('tools/list'))).body.result.tools.map((t: any) => t.name);
    expect(await names('alice')).toEqual(['agent', 'counter', 'context_echo']);
    expect(await names('bob')).toEqual([]);
    expect((await post(as('bob'), call('tools/call', { name: 'counter' }))).body.error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: counter',
    });
    expect((await post(as('carol'), call('tools/list'))).body.error).toEqual({
      code: -32600,
      message: 'carol may not list assistants',
    });
  });

  it('a run it refuses is a tool error with its message; one it allows runs', async () => {
    expect((await post(as('mallory'), call('tools/call', { name: 'counter', arguments: {} }))).body.result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'mallory may not run assistants' }],
    });
    expect(
      (await post(as('alice'), call('tools/call', { name: 'counter', arguments: {} }))).body.result.structuredContent,
    ).toEqual({ count: 1 });
  });
});

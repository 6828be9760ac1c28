// The official MCP client (@modelcontextprotocol/sdk's Client over StreamableHTTPClientTransport),
// unchanged, against our agent server's /mcp with an API key, on each store (memory, PostgreSQL):
// it initializes, lists one tool per assistant (whose input schema is the graph's, as
// GET /assistants/{id}/schemas answers it through the LangGraph SDK, with messages as the one user
// message), calls tools that run the example graphs and answer their output, gets a tool error
// from a failing graph, is refused without a key, and a second workspace's client calls the same
// tools without seeing anything of the first's.
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as LangGraphClient } from '@langchain/langgraph-sdk';
import { startAgentServerOn, writeAgentConfig, type AgentServerOnStore } from '../support/agentServer.ts';
import { createWorkspaces, type Workspace } from '../support/tracingClient.ts';
import { loadAgentConfig } from '../../services/agent-server/agentConfig.ts';
import { EXAMPLES_CONFIG } from '../support/agentServer.ts';

/** The example assistants, and a graph whose node fails. */
const configFile = writeAgentConfig({
  graphs: {
    ...Object.fromEntries(
      loadAgentConfig(EXAMPLES_CONFIG).graphs.map((g) => [
        g.graphId,
        { path: `${g.file}:${g.exportName}`, ...(g.description ? { description: g.description } : {}) },
      ]),
    ),
    failing: `${join(import.meta.dirname, '..', 'services', 'agent-server', 'fixtures', 'a2aFailingGraph.ts')}:graph`,
  },
});

async function connect(url: string, apiKey?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: apiKey ? { 'x-api-key': apiKey } : {} },
  });
  await client.connect(transport);
  return client;
}

const textOf = (result: any) => result.content.map((c: any) => c.text).join('');

describe.each(['memory', 'postgres'] as const)('%s store', (store) => {
  let running: AgentServerOnStore;
  let a: Workspace;
  let b: Workspace;
  let client: Client;

  beforeAll(async () => {
    const [started, workspaces] = await Promise.all([
      startAgentServerOn(store, 'mcp-client', { configFile }),
      createWorkspaces(2),
    ]);
    running = started;
    [a, b] = workspaces as [Workspace, Workspace];
    client = await connect(running.server.url, a.apiKey);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await running?.stop();
  });

  it('initializes: the server names itself and offers tools', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'LangGraph', version: expect.any(String) });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false } });
  });

  it('lists one tool per assistant, its input schema the graph’s (messages as the user message to send)', async () => {
    const langgraph = new LangGraphClient({ apiUrl: running.server.url, apiKey: a.apiKey });
    const assistants = await langgraph.assistants.search({ limit: 100 });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(assistants.map((x) => x.name).sort());

    const agent = tools.find((t) => t.name === 'agent')!;
    expect(agent.description).toMatch(/chat agent/i);
    expect(agent.inputSchema).toMatchObject({
      type: 'object',
      properties: { messages: { type: 'string', description: 'The user message to send to the agent.' } },
    });
    const schemas = await langgraph.assistants.getSchemas('agent');
    expect(schemas.input_schema).toMatchObject({
      type: 'object',
      properties: { messages: { type: 'array', items: { type: 'object' }, langgraph_type: 'messages' } },
    });
    expect(Object.keys(agent.inputSchema.properties ?? {})).toEqual(
      Object.keys((schemas.input_schema as any).properties),
    );
    expect(tools.find((t) => t.name === 'failing')?.description).toBe('Tool based on the failing assistant');
  });

  it('calls a tool: the graph runs and its output comes back, as JSON text and structured content', async () => {
    const said = `hello ${randomUUID()}`;
    const result = await client.callTool({ name: 'agent', arguments: { messages: said } });
    expect(result.isError).toBeFalsy();
    const values = result.structuredContent as any;
    expect(values.messages.map((m: any) => [m.type, m.content])).toEqual([
      ['human', said],
      ['ai', `Turn 1: you said "${said}"`],
    ]);
    expect(JSON.parse(textOf(result))).toEqual(values);

    const counted = await client.callTool({ name: 'counter', arguments: {} });
    expect(counted.structuredContent).toEqual({ count: 1 });
    // stateless: every call starts from a new thread
    expect((await client.callTool({ name: 'counter', arguments: {} })).structuredContent).toEqual({ count: 1 });
  });

  it('a graph that fails is a tool error saying why', async () => {
    const result = await client.callTool({ name: 'failing', arguments: { messages: 'go' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Error: the tool broke');
  });

  it('without an API key the client cannot connect (401)', async () => {
    await expect(connect(running.server.url)).rejects.toMatchObject({ code: 401 });
  });

  it('another workspace calls the same tools and sees nothing of the first’s', async () => {
    const secret = `only for A ${randomUUID()}`;
    expect(textOf(await client.callTool({ name: 'agent', arguments: { messages: secret } }))).toContain(secret);
    const other = await connect(running.server.url, b.apiKey);
    try {
      expect((await other.listTools()).tools.map((t) => t.name)).toContain('agent');
      const result = await other.callTool({ name: 'agent', arguments: { messages: 'hi from B' } });
      expect(textOf(result)).toContain('Turn 1: you said \\"hi from B\\"');
      expect(textOf(result)).not.toContain(secret);
    } finally {
      await other.close();
    }
    for (const ws of [a, b]) {
      const threads = await new LangGraphClient({ apiUrl: running.server.url, apiKey: ws.apiKey }).threads.search({
        limit: 100,
      });
      expect(JSON.stringify(threads), 'stateless calls keep no thread').not.toContain(secret);
    }
  });

  it('a workspace’s own assistant is a tool of that workspace only, running with its config', async () => {
    const langgraph = new LangGraphClient({ apiUrl: running.server.url, apiKey: a.apiKey });
    const mine = await langgraph.assistants.create({
      graphId: 'counter',
      name: 'my counter',
      description: 'counts for A',
    });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'my_counter')).toMatchObject({
      title: 'my counter',
      description: 'counts for A',
    });
    expect((await client.callTool({ name: 'my_counter', arguments: {} })).structuredContent).toEqual({ count: 1 });
    const other = await connect(running.server.url, b.apiKey);
    try {
      expect((await other.listTools()).tools.map((t) => t.name)).not.toContain('my_counter');
    } finally {
      await other.close();
    }
    await langgraph.assistants.delete(mine.assistant_id);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('my_counter');
  });
});

// What the server's configuration does to A2A: `http.disable_a2a: true` in the config file removes
// the endpoint and the cards; USER_API_URL is the base of the cards' URLs; DEFAULT_A2A_ASSISTANT_ID
// is the card served at the well-known path when the request names no assistant; a custom auth
// module guards the endpoint (not the well-known cards) and its user reaches the graph.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../support/agentServer.ts';

const AGENT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';
let disabled: AgentServer;
let configured: AgentServer;
let guarded: AgentServer;

beforeAll(async () => {
  const graphs = { agent: exampleGraph('chatAgent') };
  [disabled, configured, guarded] = await Promise.all([
    startAgentServer('a2a-disabled', { configFile: writeAgentConfig({ graphs, http: { disable_a2a: true } }) }),
    startAgentServer('a2a-configured', {
      configFile: writeAgentConfig({ graphs }),
      env: { USER_API_URL: 'https://agents.example.com/base/', DEFAULT_A2A_ASSISTANT_ID: 'agent' },
    }),
    startAgentServer('a2a-auth', {
      configFile: writeAgentConfig({
        graphs,
        auth: { path: `${join(import.meta.dirname, 'fixtures', 'tokenAuth.ts')}:auth` },
      }),
    }),
  ]);
});
afterAll(() => Promise.all([disabled?.stop(), configured?.stop(), guarded?.stop()]));

describe('http.disable_a2a', () => {
  it('removes the A2A endpoint and the agent cards, and /info says so', async () => {
    const post = await fetch(`${disabled.url}/a2a/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...disabled.headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    expect(post.status).toBe(404);
    for (const path of [
      '/a2a/agent',
      '/a2a/agent/.well-known/agent-card.json',
      '/.well-known/agent-card.json?assistant_id=agent',
    ]) {
      expect((await fetch(`${disabled.url}${path}`)).status, path).toBe(404);
    }
    expect(((await (await fetch(`${disabled.url}/info`)).json()) as any).flags.a2a).toBe(false);
    // The LangGraph API is still there.
    expect((await fetch(`${disabled.url}/assistants/agent`, { headers: disabled.headers })).status).toBe(200);
  });

  it('is off by default: /info says A2A is enabled', async () => {
    expect(((await (await fetch(`${configured.url}/info`)).json()) as any).flags.a2a).toBe(true);
  });
});

describe('USER_API_URL and DEFAULT_A2A_ASSISTANT_ID', () => {
  it('make the cards name the public URL, and the well-known card that of the default assistant', async () => {
    const card = (await (
      await fetch(`${configured.url}/.well-known/agent-card.json`, {
        headers: { 'x-forwarded-host': 'ignored.example.com' },
      })
    ).json()) as any;
    expect(card.name).toBe('agent');
    expect(card.url).toBe(`https://agents.example.com/base/a2a/${AGENT_ID}`);
    expect(card.supportedInterfaces.map((i: any) => i.url)).toEqual([card.url, card.url]);
  });
});

describe('custom auth', () => {
  const send = (token?: string) =>
    fetch(`${guarded.url}/a2a/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'who am I?' }] },
        },
      }),
    });

  it('guards the endpoint but not the well-known card', async () => {
    expect((await send()).status).toBe(401);
    expect((await fetch(`${guarded.url}/a2a/agent/.well-known/agent-card.json`)).status).toBe(200);
  });

  it('passes the authenticated user to the graph', async () => {
    const task = ((await (await send('token-alice')).json()) as any).result;
    expect(task.status.state).toBe('completed');
    const state = (await (
      await fetch(`${guarded.url}/threads/${task.contextId}/state`, {
        headers: { authorization: 'Bearer token-alice' },
      })
    ).json()) as any;
    expect(state.values.user_id).toBe('alice');
  });
});

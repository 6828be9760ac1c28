// The official A2A SDK for Python (a2a-sdk on PyPI, pinned in test/e2e/python/requirements.txt),
// unchanged, against our agent server: its v1.0 client and its v0.3 JSON-RPC transport both send,
// stream, get and cancel tasks and carry a conversation across messages (a2a_client.py).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../support/agentServer.ts';

const AGENT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';
let pyenv: PythonEnv;
let server: AgentServer;

beforeAll(async () => {
  const configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      counter: exampleGraph('counterGraph'),
      slow: `${join(import.meta.dirname, '..', 'services', 'agent-server', 'fixtures', 'slowGraph.ts')}:graph`,
    },
  });
  [pyenv, server] = await Promise.all([ensurePythonEnv(), startAgentServer('a2a-python', { configFile })]);
}, 20 * 60_000);
afterAll(() => server?.stop());

/** What one client kind saw; both kinds must see the same conversation. */
function expectConversation(seen: any) {
  expect(seen.first).toMatchObject({
    state: 'TASK_STATE_COMPLETED',
    answer: 'Turn 1: you said "hello from python"',
    status_text: 'Turn 1: you said "hello from python"',
  });
  expect(seen.first.context_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen.first.task_id.startsWith(`${seen.first.context_id}:`)).toBe(true);
  expect(seen.second.context_id).toBe(seen.first.context_id);
  expect(seen.second.answer).toBe('Turn 2: you said "and again"');
  expect(seen.second.history).toEqual([
    ['ROLE_USER', 'hello from python'],
    ['ROLE_AGENT', 'Turn 1: you said "hello from python"'],
    ['ROLE_USER', 'and again'],
    ['ROLE_AGENT', 'Turn 2: you said "and again"'],
  ]);

  expect(seen.stream.kinds[0]).toBe('task');
  expect(seen.stream.kinds.slice(-2)).toEqual(['artifact_update', 'status_update']);
  expect(seen.stream.working.length).toBeGreaterThan(2);
  expect(seen.stream.working.at(-1)).toBe('Turn 3: you said "stream from python"');
  expect(seen.stream).toMatchObject({
    artifact: 'Turn 3: you said "stream from python"',
    final_state: 'TASK_STATE_COMPLETED',
    final_text: 'Turn 3: you said "stream from python"',
    context_id: seen.first.context_id,
  });

  expect(seen.get).toEqual({
    state: 'TASK_STATE_COMPLETED',
    answer: 'Turn 1: you said "hello from python"',
    history: ['hello from python', 'Turn 1: you said "hello from python"'],
  });
  expect(seen.get_unknown).toMatch(/^TaskNotFoundError/);
  expect(seen.cancel).toEqual({
    started: 'TASK_STATE_SUBMITTED',
    canceled: 'TASK_STATE_CANCELED',
    after: 'TASK_STATE_CANCELED',
  });
}

describe('a2a-sdk (PyPI)', () => {
  it('reads the card, then talks to the assistant with the v1.0 client and the v0.3 transport', async () => {
    const { result } = await runPythonScript<any>(pyenv, 'a2a_client.py', [server.url], {
      AGENT_SERVER_API_KEY: server.apiKey,
    });
    expect(result.card.name).toBe('agent');
    expect(result.card.streaming).toBe(true);
    expect(result.card.interfaces).toContainEqual(['JSONRPC', '1.0', `${server.url}/a2a/${AGENT_ID}`]);
    expectConversation(result.v1);
    expect(result.v1.counter).toMatch(/^InvalidParamsError: .*no "messages" key/);
    expectConversation(result.v03);
  });
});

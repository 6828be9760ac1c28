// The official Python LangGraph SDK (langgraph-sdk on PyPI, pinned in
// test/e2e/python/requirements.txt), unchanged, against our agent server: with an API key, and
// as two users of a custom auth module that keeps each user's threads their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import {
  EXAMPLES_CONFIG,
  exampleGraph,
  startAgentServer,
  writeAgentConfig,
  type AgentServer,
} from '../support/agentServer.ts';

let pyenv: PythonEnv;
let server: AgentServer;
let owners: AgentServer;
beforeAll(async () => {
  const ownerAuth = writeAgentConfig({
    graphs: { agent: exampleGraph('chatAgent') },
    auth: { path: `${join(import.meta.dirname, '..', 'services', 'agent-server', 'fixtures', 'ownerAuth.ts')}:auth` },
  });
  [pyenv, server, owners] = await Promise.all([
    ensurePythonEnv(),
    startAgentServer('sdk-python', { configFile: EXAMPLES_CONFIG }),
    startAgentServer('sdk-python-owners', { configFile: ownerAuth }),
  ]);
}, 20 * 60_000);
afterAll(() => Promise.all([server?.stop(), owners?.stop()]));

describe('langgraph-sdk (PyPI)', () => {
  it('creates threads, waits for and streams runs in every mode, reads state and history', async () => {
    // The SDK sends LANGGRAPH_API_KEY as X-Api-Key, as against LangGraph Platform.
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_runs.py', [server.url], {
      LANGGRAPH_API_KEY: server.apiKey,
    });
    expect(result.assistants).toEqual(['adk_echo', 'agent', 'approval', 'counter', 'memory', 'noop']);
    expect(result.agent_id).toBe('fe096781-5601-53d2-b2f6-0d3403f7e9ca');
    expect(result.thread_status).toBe('idle');
    expect(result.wait_answers).toEqual(['Turn 1: you said "hello from python"', 'Turn 2: you said "second"']);
    expect(result.stream_events[0]).toBe('metadata');
    expect(result.stream_events).toEqual(
      expect.arrayContaining([
        'values',
        'updates',
        'custom',
        'messages',
        'messages/metadata',
        'messages/partial',
        'messages/complete',
      ]),
    );
    expect(result.partials.length).toBeGreaterThan(3);
    expect(result.partials.at(-1)).toBe('Turn 3: you said "stream"');
    expect(result.custom).toEqual([{ type: 'progress', step: 'calling the model' }]);
    expect(result.final_values).toBe('Turn 3: you said "stream"');
    expect(result.state_messages).toBe(6);
    expect(result.history_len).toBe(2);
    expect(result.busy_status).toBe(422);
    expect(result.stateless_answer).toBe('Turn 1: you said "stateless"');
    expect(result.deleted).toBe(true);
  });

  it('as two users of an auth module that stamps owners: each sees only their own threads', async () => {
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_owners.py', [owners.url], {});
    expect(result.owner).toBe('alice');
    expect(result.answer).toBe('Turn 1: you said "from python"');
    expect(result.alice_sees).toEqual(['alice']);
    expect(result.bob_sees).toEqual(['bob']);
    expect(result.bob_on_alices).toEqual({
      get: 404,
      state: 404,
      history: 404,
      runs: 404,
      run: 404,
      update: 404,
      delete: 404,
      wait: 404,
    });
    expect(result.alice_still_has).toMatchObject({ owner: 'alice' });
    expect(result.no_token).toBe(401);
  });
});

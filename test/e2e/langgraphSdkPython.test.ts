// The official Python LangGraph SDK (langgraph-sdk on PyPI, pinned in
// test/e2e/python/requirements.txt), unchanged, against our agent server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { startAgentServer, type AgentServer } from '../support/agentServer.ts';

let pyenv: PythonEnv;
let server: AgentServer;
beforeAll(async () => {
  [pyenv, server] = await Promise.all([ensurePythonEnv(), startAgentServer('sdk-python')]);
}, 20 * 60_000);
afterAll(() => server?.stop());

describe('langgraph-sdk (PyPI)', () => {
  it('creates threads, waits for and streams runs in every mode, reads state and history', async () => {
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_runs.py', [server.url], {});
    expect(result.assistants).toEqual(['agent', 'counter', 'noop']);
    expect(result.agent_id).toBe('fe096781-5601-53d2-b2f6-0d3403f7e9ca');
    expect(result.thread_status).toBe('idle');
    expect(result.wait_answers).toEqual(['Turn 1: you said "hello from python"', 'Turn 2: you said "second"']);
    expect(result.stream_events[0]).toBe('metadata');
    expect(result.stream_events).toEqual(expect.arrayContaining(['values', 'updates', 'custom', 'messages', 'messages/metadata', 'messages/partial', 'messages/complete']));
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
});

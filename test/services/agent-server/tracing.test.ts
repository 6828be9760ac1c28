// The agent server traces each run into our tracing API through the official langsmith client
// (LangChain's tracer, configured by the usual LANGSMITH_* variables): the trace's root is the
// run (same id), and every turn of a thread lands in one tracing thread. A caller's own
// metadata.thread_id wins, so several agents can share one thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4 as uuidv4 } from 'uuid';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../../support/tracingClient.ts';
import { startAgentServer, type AgentServer } from '../../support/agentServer.ts';
import { waitFor } from '../../support/serviceProcess.ts';

let workspace: Workspace;
let server: AgentServer;
const project = `agent-server-tracing-${Date.now()}`;

beforeAll(async () => {
  workspace = (await createWorkspaces(1))[0]!;
  server = await startAgentServer('tracing', {
    env: {
      LANGSMITH_TRACING: 'true',
      LANGSMITH_ENDPOINT: tracingUrl(),
      LANGSMITH_API_KEY: workspace.apiKey,
      LANGSMITH_PROJECT: project,
    },
  });
});
afterAll(() => server?.stop());

async function runWait(
  threadId: string,
  text: string,
  metadata?: Record<string, unknown>,
): Promise<{ runId: string; values: any }> {
  const res = await fetch(`${server.url}/threads/${threadId}/runs/wait`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.headers },
    body: JSON.stringify({
      assistant_id: 'agent',
      input: { messages: [{ type: 'human', content: text }] },
      if_not_exists: 'create',
      ...(metadata ? { metadata } : {}),
    }),
  });
  expect(res.status).toBe(200);
  const runId = res.headers.get('content-location')!.split('/').at(-1)!;
  return { runId, values: JSON.parse(await res.text()) };
}

async function threadTraces(threadId: string, projectId: string): Promise<any[]> {
  const res = await api(`/api/v2/threads/${threadId}/traces?project_id=${projectId}`, { apiKey: workspace.apiKey });
  return res.status === 200 ? res.body.items : [];
}

describe('agent server tracing', () => {
  it('traces every turn of a thread into one tracing thread, the root run carrying the run id', async () => {
    const threadId = uuidv4();
    const first = await runWait(threadId, 'first turn');
    const second = await runWait(threadId, 'second turn');
    expect(second.values.messages.at(-1).content).toBe('Turn 2: you said "second turn"');

    const root = await waitForRun(workspace.apiKey, first.runId, (r) => r.end_time !== null);
    expect(root).toMatchObject({ name: 'agent', run_type: 'chain', trace_id: first.runId, parent_run_id: null });
    expect(root.extra.metadata).toMatchObject({ thread_id: threadId, graph_id: 'agent', run_id: first.runId });
    const traces = await waitFor('both turns in the thread', async () => {
      const items = await threadTraces(threadId, root.session_id);
      return items.length === 2 ? items : null;
    });
    expect(traces.map((t) => t.trace_id ?? t.id).sort()).toEqual([first.runId, second.runId].sort());

    // The chat model's call is a child llm run with its token usage.
    const llm = await waitFor('the llm child run', async () => {
      const res = await api('/runs/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { trace: second.runId, run_type: 'llm' },
      });
      return res.status === 200 && res.body.runs?.length ? res.body.runs[0] : null;
    });
    expect(llm.outputs.generations?.[0]?.[0]?.text ?? JSON.stringify(llm.outputs)).toContain('Turn 2: you said');
    expect(llm.total_tokens).toBeGreaterThan(0);
  });

  it("honours a caller's metadata.thread_id as the tracing thread", async () => {
    const shared = uuidv4();
    const { runId } = await runWait(uuidv4(), 'joins a shared thread', { thread_id: shared });
    const root = await waitForRun(workspace.apiKey, runId, (r) => r.end_time !== null);
    expect(root.extra.metadata.thread_id).toBe(shared);
    await waitFor(
      'the trace in the shared thread',
      async () => (await threadTraces(shared, root.session_id)).length === 1,
    );
  });
});

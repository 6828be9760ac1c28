// One conversation that crosses two agents reads back as one tracing thread. A client talks
// A2A, with the official @a2a-js/sdk client, to our agent server's `agent` assistant (first
// turn: no contextId, the answer brings contextId C), then to the example non-LangGraph agent
// (examples/otel-a2a-agent, which traces through OpenTelemetry) with the
// request's top-level metadata {thread_id: C}, then to the agent server again in context C.
// Both agents trace into one workspace and project of the tracing API; thread C then holds the
// three turns: the agent server's two runs and the example agent's span.
//
// The client has no option for a JSON-RPC request's top-level `metadata` (its sendMessage
// metadata goes inside `params`), so the requests that carry the thread go through its
// `fetchImpl` hook, which adds the member; the client itself is used unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { startAgentServer, type AgentServer } from '../support/agentServer.ts';
import { startExampleA2aAgent, tracingEnv, type ExampleA2aAgent } from '../support/exampleA2aAgent.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { a2aClientFactory, userMessage } from '../support/a2aTesting.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';

const PROJECT = `cross-agent-${randomBytes(4).toString('hex')}`;
let workspace: Workspace;
let server: AgentServer;
let echo: ExampleA2aAgent;

beforeAll(async () => {
  workspace = (await createWorkspaces(1))[0]!;
  const env = tracingEnv(tracingUrl(), workspace.apiKey, PROJECT);
  [server, echo] = await Promise.all([
    startAgentServer('cross-agent', { env }),
    startExampleA2aAgent('cross-agent', env),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), echo?.stop()]);
});

/** A fetch that adds `thread_id` to the top-level `metadata` of every JSON-RPC request the client sends. */
const withThreadId =
  (threadId: string): typeof fetch =>
  (url, init) => {
    const body = JSON.parse(String(init?.body));
    return fetch(url, {
      ...init,
      body: JSON.stringify({ ...body, metadata: { ...body.metadata, thread_id: threadId } }),
    });
  };

/** The official client for the agent whose card is at `cardUrl`, with the agent server's key; A2A 0.3 servers are spoken to in 0.3. */
function a2aClient(cardUrl: string, threadId?: string): Promise<Client> {
  return a2aClientFactory(server.apiKey, {
    legacyCompat: true,
    ...(threadId ? { fetchImpl: withThreadId(threadId) } : {}),
  }).createFromUrl(cardUrl, '');
}

/** Sends one text message and returns the task and its answer (artifact text first, then the status message, as A2A clients read it). */
async function say(client: Client, text: string, contextId?: string): Promise<{ task: Task; answer: string }> {
  const result = await client.sendMessage({
    tenant: '',
    message: userMessage(text, contextId),
    configuration: undefined,
    metadata: undefined,
  });
  if (!('artifacts' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  const parts = [...result.artifacts.flatMap((a) => a.parts), ...(result.status?.message?.parts ?? [])];
  const answer = parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).find(Boolean) ?? '';
  return { task: result, answer };
}

describe('a conversation across two agents', () => {
  it('reads back as one thread: the agent server turns and the example agent turn', async () => {
    const agentCard = `${server.url}/a2a/agent/.well-known/agent-card.json`;
    const first = await say(await a2aClient(agentCard), 'plan a trip');
    expect(first.answer).toBe('Turn 1: you said "plan a trip"');
    const threadId = first.task.contextId;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);

    // The example agent gets no contextId of ours: only the metadata ties its turn to the conversation.
    const hop = await say(await a2aClient(`${echo.url}/.well-known/agent-card.json`, threadId), 'book the hotel');
    expect(hop.answer).toBe('Echo: book the hotel');
    expect(hop.task.contextId).not.toBe(threadId);

    const second = await say(await a2aClient(agentCard, threadId), 'and the train', threadId);
    expect(second.task.contextId).toBe(threadId);
    expect(second.answer).toBe('Turn 2: you said "and the train"');

    const projectId = projectIdForName(workspace.id, PROJECT);
    const turns = await waitFor(
      'the three turns in the thread',
      async () => {
        const res = await api(
          `/api/v2/threads/${threadId}/traces?project_id=${projectId}&selects=TRACE_ID&selects=NAME&selects=INPUTS`,
          { apiKey: workspace.apiKey },
        );
        return res.status === 200 && res.body.items.length >= 3 ? res.body.items : null;
      },
      30_000,
      250,
    );
    expect(turns.map((t: { name: string }) => t.name)).toEqual(['agent', 'echo-agent', 'agent']);
    expect(turns[1].inputs).toEqual({ input: 'book the hotel' });

    const echoRun = (await api(`/runs/${turns[1].trace_id}`, { apiKey: workspace.apiKey })).body;
    expect(echoRun.extra.metadata).toMatchObject({ thread_id: threadId, a2a_context_id: hop.task.contextId });

    const thread = await waitFor('the thread in the project', async () => {
      const res = await api('/api/v2/threads/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { project_id: projectId },
      });
      return res.status === 200 ? res.body.items.find((t: { thread_id: string }) => t.thread_id === threadId) : null;
    });
    expect(thread.count).toBe(3);
  });
});

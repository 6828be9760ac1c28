// The example non-LangGraph A2A agent (examples/otel-a2a-agent) on its own:
// it serves its card, answers message/send and message/stream (the official @a2a-js/sdk client,
// unchanged, and the spec's 0.3 wire), and traces each turn as an OpenTelemetry span that the
// tracing API stores as a run in the thread named by the request's top-level metadata.thread_id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientFactory } from '@a2a-js/sdk/client';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { sendText, startExampleA2aAgent, tracingEnv, type ExampleA2aAgent } from '../support/exampleA2aAgent.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { userMessage } from '../support/a2aTesting.ts';
import { projectIdForName } from '../../projections/projects/projectRegistry.ts';

const PROJECT = `echo-agent-${randomBytes(4).toString('hex')}`;
let workspace: Workspace;
let agent: ExampleA2aAgent;

beforeAll(async () => {
  workspace = (await createWorkspaces(1))[0]!;
  agent = await startExampleA2aAgent('alone', tracingEnv(tracingUrl(), workspace.apiKey, PROJECT));
});
afterAll(() => agent?.stop());

/** The traces of a thread in the test's project, oldest first, once there are `count` of them. */
async function threadTraces(threadId: string, count: number): Promise<any[]> {
  const projectId = projectIdForName(workspace.id, PROJECT);
  return waitFor(
    `${count} trace(s) in thread ${threadId}`,
    async () => {
      const res = await api(
        `/api/v2/threads/${encodeURIComponent(threadId)}/traces?project_id=${projectId}&selects=TRACE_ID&selects=NAME&selects=INPUTS&selects=OUTPUTS`,
        { apiKey: workspace.apiKey },
      );
      return res.status === 200 && res.body.items.length >= count ? res.body.items : null;
    },
    30_000,
    200,
  );
}

const rootRun = async (traceId: string): Promise<any> =>
  (await api(`/runs/${traceId}`, { apiKey: workspace.apiKey })).body;

describe('example A2A agent (not LangGraph)', () => {
  it('serves its agent card, for A2A 0.3 and 1.0 clients', async () => {
    const legacy: any = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json();
    expect(legacy).toMatchObject({
      name: 'echo-agent',
      url: `${agent.url}/a2a`,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3',
      capabilities: { streaming: true },
    });
    expect(legacy.skills.map((s: { id: string }) => s.id)).toEqual(['echo']);
    const current: any = await (
      await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json();
    expect(current.supportedInterfaces).toContainEqual(
      expect.objectContaining({ url: `${agent.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
    );
  });

  it('answers message/send and message/stream through the official client', async () => {
    const client = await new ClientFactory().createFromUrl(agent.url);
    const sent = await client.sendMessage({
      tenant: '',
      message: userMessage('hello'),
      configuration: undefined,
      metadata: undefined,
    });
    expect('artifacts' in sent && sent.artifacts[0]?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Echo: hello',
    });

    const events = [];
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: userMessage('streamed'),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(event.payload);
    expect(events.map((e) => e?.$case)).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
    const last = events.at(-1);
    expect(last?.$case === 'statusUpdate' && last.value.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Echo: streamed',
    });
  });

  it("traces a turn as a run in the thread named by the request's top-level metadata.thread_id", async () => {
    const threadId = `thread-${randomUUID()}`;
    const reply = await sendText(`${agent.url}/a2a`, 'trace me', { metadata: { thread_id: threadId } });
    expect(reply.result.artifacts[0].parts[0]).toEqual({ kind: 'text', text: 'Echo: trace me' });

    const [turn] = await threadTraces(threadId, 1);
    expect(turn).toMatchObject({
      name: 'echo-agent',
      inputs: { input: 'trace me' },
      outputs: { output: 'Echo: trace me' },
    });
    const run = await rootRun(turn.trace_id);
    expect(run).toMatchObject({
      id: turn.trace_id,
      parent_run_id: null,
      run_type: 'chain',
      session_id: projectIdForName(workspace.id, PROJECT),
    });
    expect(run.extra.metadata).toMatchObject({
      thread_id: threadId,
      a2a_context_id: reply.result.contextId,
      a2a_task_id: reply.result.id,
      'service.name': 'echo-agent',
    });
  });

  it('without metadata.thread_id, the A2A contextId is the thread: every turn of a conversation lands in it', async () => {
    const first = await sendText(`${agent.url}/a2a`, 'first');
    const contextId: string = first.result.contextId;
    const second = await sendText(`${agent.url}/a2a`, 'second', { contextId });
    expect(second.result.contextId).toBe(contextId);

    const turns = await threadTraces(contextId, 2);
    expect(turns.map((t) => t.inputs)).toEqual([{ input: 'first' }, { input: 'second' }]);
  });

  it('sends the spans still queued when it is stopped', async () => {
    // Spans would wait ten minutes for their batch: only the shutdown flush can deliver this one.
    const patient = await startExampleA2aAgent('flush', {
      ...tracingEnv(tracingUrl(), workspace.apiKey, PROJECT),
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const threadId = `thread-${randomUUID()}`;
    await sendText(`${patient.url}/a2a`, 'last words', { metadata: { thread_id: threadId } });
    await patient.stop();
    expect(patient.process.child.exitCode).toBe(0);
    const [turn] = await threadTraces(threadId, 1);
    expect(turn.outputs).toEqual({ output: 'Echo: last words' });
  });

  it('rejects a metadata.thread_id that is not a non-empty string, naming it', async () => {
    for (const metadata of [{ thread_id: 42 }, { thread_id: '' }, 'thread-1']) {
      const reply = await sendText(`${agent.url}/a2a`, 'bad thread', { metadata });
      expect(reply.error).toMatchObject({ code: -32602 });
      expect(reply.error.message).toMatch(/metadata/);
    }
  });
});

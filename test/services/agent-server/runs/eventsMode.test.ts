// Stream mode `events` (it was refused with a 422): the run goes through LangChain's streamEvents
// v2 and sends each callback event as an `events` event, beside the other modes asked for, which
// keep their own events (the root run's on_chain_stream events carry them).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createLogger } from '../../../../platform/logger.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../../services/tenancy/index.ts';
import { Caller } from '../../../../services/agent-server/auth/callers.ts';
import { ANONYMOUS } from '../../../../services/agent-server/auth/customAuth.ts';
import { GraphRegistry } from '../../../../services/agent-server/graphRegistry.ts';
import { RunManager } from '../../../../services/agent-server/runs/runManager.ts';
import { MemoryCheckpointer } from '../../../../services/agent-server/store/memoryCheckpointer.ts';
import { MemoryRecordStore } from '../../../../services/agent-server/store/memoryRecordStore.ts';
import { WorkspaceCheckpointer } from '../../../../platform/workspaceThreads.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';

async function runManager() {
  const checkpointer = new WorkspaceCheckpointer(new MemoryCheckpointer());
  const graphs = await GraphRegistry.load(
    [{ graphId: 'agent', file: join(repoRoot, 'examples/agent-server/chatAgent.ts'), exportName: 'graph' }],
    checkpointer,
  );
  return new RunManager({
    graphs,
    store: new MemoryRecordStore(),
    checkpointer,
    logger: createLogger('test', 'silent'),
  });
}

const caller = new Caller(DEFAULT_WORKSPACE_ID, ANONYMOUS);
const input = { messages: [{ role: 'user', content: 'hello' }] };

describe('stream mode events', () => {
  it('sends streamEvents v2 events beside the values and messages of the run', async () => {
    const runs = await runManager();
    const run = await runs.create(
      undefined,
      { assistant_id: 'agent', input, stream_mode: ['events', 'values'] },
      caller,
    );
    const events: { event: string; data: any }[] = [];
    for await (const e of run.subscribe()) events.push({ event: e.event, data: JSON.parse(e.data) });
    expect((await run.outcome).status).toBe('success');
    expect(events[0]!.event).toBe('metadata');
    const raw = events.filter((e) => e.event === 'events').map((e) => e.data);
    const kinds = new Set(raw.map((e) => e.event));
    for (const kind of [
      'on_chain_start',
      'on_chat_model_start',
      'on_chat_model_stream',
      'on_chat_model_end',
      'on_chain_end',
    ])
      expect(kinds, kind).toContain(kind);
    const root = raw.find((e) => e.event === 'on_chain_start' && e.run_id === run.record.run_id);
    expect(root).toMatchObject({ name: 'agent', tags: expect.any(Array), metadata: expect.any(Object) });
    expect(raw.find((e) => e.event === 'on_chat_model_start').metadata).toMatchObject({
      langgraph_node: 'agent',
      run_id: run.record.run_id,
    });
    const tokens = raw
      .filter((e) => e.event === 'on_chat_model_stream')
      .map((e) => e.data.chunk.content)
      .join('');
    expect(tokens).toBe('Turn 1: you said "hello"');
    // the root's own stream events are not repeated as events: they are the values events
    expect(raw.some((e) => e.event === 'on_chain_stream' && e.run_id === run.record.run_id)).toBe(false);
    const values = events.filter((e) => e.event === 'values');
    expect(values.at(-1)!.data.messages.at(-1).content).toBe('Turn 1: you said "hello"');
  });

  it('runs without events mode stream as before (no events event)', async () => {
    const runs = await runManager();
    const run = await runs.create(undefined, { assistant_id: 'agent', input, stream_mode: ['values'] }, caller);
    const names: string[] = [];
    for await (const e of run.subscribe()) names.push(e.event);
    expect(names).toEqual(['metadata', 'values', 'values']);
  });
});

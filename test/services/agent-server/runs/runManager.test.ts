// The run manager keeps a finished run in memory only while a route can still reach it: every
// route to a run goes through its thread, so a stateless run whose temporary thread is deleted
// is forgotten when it ends (keeping it a minute held tens of thousands of runs' events under
// load), while a run on a kept thread stays joinable.
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
import { repoRoot } from '../../../support/serviceProcess.ts';

async function runManager() {
  const checkpointer = new MemoryCheckpointer();
  const store = new MemoryRecordStore();
  const graphs = await GraphRegistry.load([{ graphId: 'noop', file: join(repoRoot, 'examples/agent-server/noopGraph.ts'), exportName: 'graph' }], checkpointer);
  return { runs: new RunManager({ graphs, store, checkpointer, logger: createLogger('test', 'silent') }), store };
}

const caller = new Caller(DEFAULT_WORKSPACE_ID, ANONYMOUS);
const input = { messages: [{ role: 'user', content: 'hello' }] };

describe('RunManager', () => {
  it('forgets a stateless run when it ends and its temporary thread is deleted', async () => {
    const { runs, store } = await runManager();
    const run = await runs.create(undefined, { assistant_id: 'noop', input }, caller);
    expect(runs.get(run.record.run_id)).toBe(run);
    expect((await run.outcome).status).toBe('success');
    expect(runs.get(run.record.run_id)).toBeUndefined();
    expect(await store.getThread({ workspaceId: DEFAULT_WORKSPACE_ID }, run.record.thread_id)).toBeUndefined();
  });

  it('keeps a finished run joinable when its thread stays (a thread’s, or a stateless one with on_completion keep)', async () => {
    const { runs } = await runManager();
    const onThread = await runs.create('00000000-0000-4000-8000-000000000001', { assistant_id: 'noop', input, if_not_exists: 'create' }, caller);
    const kept = await runs.create(undefined, { assistant_id: 'noop', input, on_completion: 'keep' }, caller);
    for (const run of [onThread, kept]) {
      expect((await run.outcome).status).toBe('success');
      expect(runs.get(run.record.run_id)).toBe(run);
    }
  });
});

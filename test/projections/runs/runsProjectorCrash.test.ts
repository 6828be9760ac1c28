// The runs projector killed between two inserts of a batch: its runs are in `runs`, its trace
// row is not. The batch comes back to a new process, which finds every op already applied; the
// trace row must still be written, from the trace's state.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { RunsProjector } from '../../../projections/runs/runsProjector.ts';
import type { ProjectedEvent, Retry } from '../../../projections/projectorRuntime.ts';
import type { RunOp } from '../../../schemas/events.generated.ts';
import { loadConfig } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import { sql } from '../../../platform/clickhouse/sql.ts';
import { scratchDatabase, type ScratchDatabase } from '../../services/tracing/traces/readModelFixture.ts';

let db: ScratchDatabase;
beforeAll(async () => {
  db = await scratchDatabase(inject('tracingEnv').CLICKHOUSE_URL!, 'projector_crash');
});
afterAll(() => db?.drop());

const projector = () =>
  new RunsProjector({ ...loadConfig({ ...process.env, ...inject('tracingEnv') }), PROJECTOR_CACHE_RUNS: 1000 }, db.ch, createLogger('crash-test', 'silent'));

function post(runId: string, traceId: string, sessionId: string, parent: string | null, start: number): RunOp {
  return {
    op: 'post', run_id: runId, session_id: sessionId, parent_run_id: parent, dotted_order: '', name: parent ? 'child' : 'root', run_type: 'chain',
    start_time: start, end_time: start + 1_000_000, inputs: '{}', outputs: '{}', events: null, extra: null, serialized: null, error: null, tags: null,
    reference_example_id: null, attachments: [],
  };
}

test('a batch delivered again after a crash between its runs and its trace row writes the trace row', async () => {
  const tenant = randomUUID();
  const project = randomUUID();
  const traceId = randomUUID();
  const start = Date.now() * 1000;
  const events: ProjectedEvent[] = [{
    partition: 0,
    offset: 42n,
    event: {
      name: 'RunOpsAppended', version: 1,
      payload: { tenant_id: tenant, trace_id: traceId, request_id: randomUUID(), received_at: start, ops: [post(traceId, traceId, project, null, start), post(randomUUID(), traceId, project, traceId, start + 10)] },
    },
  }];
  const killedAfterRuns: Retry = async (what, step) => {
    if (what !== 'insert runs' && what !== 'insert run locations' && what !== 'read payloads for derived fields' && what !== 'load traces') throw new Error('killed');
    await step();
  };
  await expect(projector().project(events, killedAfterRuns)).rejects.toThrow('killed');
  const traceRows = () => db.ch.query<{ n: string }>(sql`SELECT run_count AS n FROM traces FINAL WHERE tenant_id = toUUID(${tenant})`);
  expect(await traceRows()).toEqual([]);

  await projector().project(events, (_what, step) => step());
  expect((await traceRows()).map((r) => Number(r.n))).toEqual([2]);
});

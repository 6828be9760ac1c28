// Deleting a project is a tombstone event: the projectors delete its rows from every read
// model, skip its later events, and a replay never brings them back.
import { expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { ownStack } from '../support/ownStack.ts';
import { postMultipart } from '../support/tracingStack.ts';
import { makeTrace, postParts, type Part } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { createLogger } from '../../platform/logger.ts';
import { replay } from '../../projections/replay/replay.ts';
import { LIVE_TABLES, type ReadModelTables } from '../../projections/readModelTables.ts';

const own = ownStack('deletion', { PROJECTOR_FLUSH_MS: '20' });
const send = (parts: Part[]) => own.send(parts);

/**
 * Rows per table of a project. The hour write counts (as many rows as inserts, so far) are
 * reported as whether there are any; the hour stats (filled by readers, none here) as a count.
 */
async function rowsOf(tables: ReadModelTables, projectId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [key, table] of Object.entries(tables)) {
    // a presigned token belongs to no project, nor does a dataset's example
    if (key === 'feedbackTokens' || key === 'examples' || key === 'exampleIds') continue;
    if (key === 'traceHourWrites' || key === 'traceHourReach') {
      const [r] = await own.ch.query<{ n: string }>(
        sql`SELECT count() > 0 AS n FROM ${ident(table)} WHERE session_id = toUUID(${projectId})`,
      );
      out[key] = Number(r!.n);
      continue;
    }
    const [r] = await own.ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM ${ident(table)} WHERE session_id = toUUID(${projectId})`,
    );
    out[key] = Number(r!.n);
  }
  return out;
}

test('a deleted project leaves no rows in any read model, now or after a replay', async () => {
  const ids: Record<string, string> = {};
  for (const name of ['doomed', 'kept']) {
    for (let i = 0; i < 5; i++) {
      const trace = makeTrace(2, { session_name: name, extra: { metadata: { thread_id: `thread-${i}` } } });
      await send([
        ...postParts(trace),
        { name: `feedback.${uuidv7()}`, body: JSON.stringify({ run_id: trace[1]!.id, key: 'k', score: 1 }) },
      ]);
    }
    const res = await fetch(`${own.stack.url}/sessions?name=${name}`, { headers: { 'x-api-key': own.stack.apiKey } });
    ids[name] = ((await res.json()) as Array<{ id: string }>)[0]!.id;
  }
  const full = {
    runs: 15,
    runKeys: 15,
    runLocations: 15,
    runThreads: 15,
    traces: 5,
    feedback: 5,
    tracesByHour: 5,
    traceHourWrites: 1,
    traceHourStats: 0,
    tracesByThread: 5,
    traceHourReach: 1,
  };
  await waitFor(
    'both projects projected',
    async () => {
      const [a, b] = [await rowsOf(LIVE_TABLES, ids.doomed!), await rowsOf(LIVE_TABLES, ids.kept!)];
      return JSON.stringify(a) === JSON.stringify(full) && JSON.stringify(b) === JSON.stringify(full);
    },
    30_000,
    100,
  );

  const del = await fetch(`${own.stack.url}/sessions/${ids.doomed}`, {
    method: 'DELETE',
    headers: { 'x-api-key': own.stack.apiKey },
  });
  expect(del.status).toBeLessThan(300);
  const none = {
    runs: 0,
    runKeys: 0,
    runLocations: 0,
    runThreads: 0,
    traces: 0,
    feedback: 0,
    tracesByHour: 0,
    traceHourWrites: 0,
    traceHourStats: 0,
    tracesByThread: 0,
    traceHourReach: 0,
  };
  await waitFor(
    "the deleted project's rows gone",
    async () => JSON.stringify(await rowsOf(LIVE_TABLES, ids.doomed!)) === JSON.stringify(none),
    30_000,
    200,
  );
  expect(await rowsOf(LIVE_TABLES, ids.kept!)).toEqual(full);

  // its id is refused from now on
  const late = makeTrace(0, { session_id: ids.doomed });
  expect((await postMultipart(own.stack, postParts(late))).status).toBe(404);

  const summary = await replay(own.stack.config, own.ch, createLogger('deletion-test', 'warn'), {
    views: ['runs', 'traces'],
    swap: false,
  });
  expect(await rowsOf(summary.tables, ids.doomed!)).toEqual(none);
  expect(await rowsOf(summary.tables, ids.kept!)).toEqual(full);
  for (const table of Object.values(summary.tables)) await own.ch.exec(sql`DROP TABLE ${ident(table)}`);
});

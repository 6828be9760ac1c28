// Upgrading a deployment from a release before the copies of read-model rows: its `traces` and
// `runs` hold rows and there is no `traces_by_hour`, `traces_by_thread` or `run_threads`. At
// start the processes mark each and say what to run; until then project stats, thread pages, a
// thread's traces and filters on thread_id read `traces` and `runs` (as before), so none is
// missing; `npm run replay -- --view traces --view runs` (the commands they name) swaps filled
// copies in and the reads use them.
import { expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { ownStack } from '../support/ownStack.ts';
import { makeTrace, postParts } from '../support/runFactory.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureReadModels } from '../../projections/readModels.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { incompleteMarker, warnIfCopiesIncomplete, type ReadModelCopy } from '../../projections/copiesUpgrade.ts';
import { copyUsable } from '../../projections/shared/copies.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';

const own = ownStack('hour_upgrade', { PROJECTOR_FLUSH_MS: '20' });

const COPIES: ReadModelCopy[] = ['byHour', 'byThread', 'runsByThread'];
const marked = async (copy: ReadModelCopy) =>
  (
    await own.ch.query(
      sql`SELECT 1 FROM system.tables WHERE database = ${own.ch.database} AND name = ${incompleteMarker(copy)}`,
    )
  ).length > 0;
const api = async (path: string, body: unknown) => {
  const res = await fetch(`${own.stack.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': own.stack.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};
/** The project's threads (first page) and each one's trace count, and the traces of one thread, through the routes. */
const threadsOf = async (projectId: string) => {
  const page = (await api('/api/v2/threads/query', { project_id: projectId })) as {
    items: Array<{ thread_id: string; count: number }>;
  };
  return Object.fromEntries(page.items.map((t) => [t.thread_id, t.count]));
};
/** How many runs of the project each filter on thread_id finds, through POST /runs/query. */
const threadRunsOf = async (projectId: string) => {
  const counts: Record<string, number> = {};
  for (const thread of ['thread-0', 'thread-1', 'thread-2']) {
    const page = (await api('/runs/query', {
      session: [projectId],
      filter: `eq(thread_id, "${thread}")`,
      limit: 100,
      select: ['id'],
    })) as { runs: unknown[] };
    counts[thread] = page.runs.length;
  }
  return counts;
};
const statsOf = async (projectId: string) => {
  const res = await fetch(`${own.stack.url}/runs/stats`, {
    method: 'POST',
    headers: { 'x-api-key': own.stack.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ session: [projectId] }),
  });
  return (await res.json()) as { trace_count: number; run_count: number };
};

test('a database without the copies is marked at start, its stats, threads and thread filters read `traces` and `runs` until `npm run replay -- --view traces --view runs`, then the copies', async () => {
  const traces = Array.from({ length: 8 }, (_, i) =>
    makeTrace(1 + (i % 3), { session_name: 'hour-upgrade', extra: { metadata: { thread_id: `thread-${i % 3}` } } }),
  );
  for (const t of traces) await own.send(postParts(t));
  const runs = traces.flat().length;
  // (read from ClickHouse, not through the stats: the API checks for the marker at its first stats read)
  await waitFor(
    'the traces projected',
    async () =>
      Number((await own.ch.query<{ n: string }>(sql`SELECT sum(run_count) AS n FROM traces FINAL`))[0]!.n) === runs,
    30_000,
    100,
  );
  const [{ id: projectId }] = (await own.ch.query<{ id: string }>(
    sql`SELECT toString(session_id) AS id FROM traces FINAL LIMIT 1`,
  )) as [{ id: string }];
  for (const copy of COPIES) expect(await marked(copy)).toBe(false); // a fresh database has nothing to upgrade
  const threads = { 'thread-0': 3, 'thread-1': 3, 'thread-2': 2 };
  expect(await threadsOf(projectId)).toEqual(threads);
  const threadRuns = { 'thread-0': 6, 'thread-1': 9, 'thread-2': 8 };
  expect(await threadRunsOf(projectId)).toEqual(threadRuns);

  // The deployment as an older release left it: `traces` and `runs` with rows, none of the copies' tables.
  await own.stack.projector.stop();
  const t = LIVE_TABLES;
  for (const table of [
    t.tracesByHour,
    t.traceHourWrites,
    t.traceHourStats,
    t.tracesByThread,
    t.traceHourReach,
    t.runThreads,
  ])
    await own.ch.exec(sql`DROP TABLE ${ident(table)}`);

  // Start-up: the copies' tables are created, and marked as missing what came before; the log says what to run.
  await ensureReadModels(own.ch);
  for (const copy of COPIES) expect(await marked(copy)).toBe(true);
  const logged: string[] = [];
  const logger = createLogger('hour-upgrade-test', 'warn');
  logger.error = ((_fields: unknown, message: string) => void logged.push(message)) as typeof logger.error;
  await warnIfCopiesIncomplete(own.ch, logger);
  expect(logged).toHaveLength(3);
  expect(logged.filter((line) => line.includes('`npm run replay -- --view traces`'))).toHaveLength(2);
  expect(
    logged.filter((line) => line.startsWith('run_threads') && line.includes('`npm run replay -- --view runs`')),
  ).toHaveLength(1);
  const fresh = new ClickHouseClient({ url: own.stack.config.CLICKHOUSE_URL, database: own.ch.database });
  for (const copy of COPIES) expect(await copyUsable(fresh, copy)).toBe(false);
  await fresh.close();
  own.stack.startProjector();

  // A new trace after the upgrade; the stats count every trace, old ones included (read from `traces`).
  const after = makeTrace(2, { session_name: 'hour-upgrade', extra: { metadata: { thread_id: 'thread-2' } } });
  await own.send(postParts(after));
  // Up to a minute: a stopped projector that did not leave its group (SIGKILLed when its SIGTERM
  // takes over 10 s on a busy machine) holds its partitions until its session times out (30 s).
  await waitFor(
    'every trace in the stats meanwhile',
    async () => (await statsOf(projectId)).run_count === runs + after.length,
    60_000,
    100,
  );
  expect((await statsOf(projectId)).trace_count).toBe(traces.length + 1);
  const withAfter = { ...threads, 'thread-2': 3 };
  expect(await threadsOf(projectId)).toEqual(withAfter);
  const turns = async () => {
    const res = await fetch(`${own.stack.url}/api/v2/threads/thread-0/traces?project_id=${projectId}`, {
      headers: { 'x-api-key': own.stack.apiKey },
    });
    return ((await res.json()) as { items: unknown[] }).items.length;
  };
  expect(await turns()).toBe(3);
  const withAfterRuns = { ...threadRuns, 'thread-2': threadRuns['thread-2'] + after.length };
  expect(await threadRunsOf(projectId)).toEqual(withAfterRuns);

  const cli = spawn(process.execPath, ['projections/replay/replayMain.ts', '--view', 'traces', '--view', 'runs'], {
    cwd: repoRoot,
    env: { ...process.env, ...own.stack.env, LOG_LEVEL: 'warn' },
  });
  let output = '';
  cli.stdout.on('data', (d) => (output += d));
  cli.stderr.on('data', (d) => (output += d));
  expect(await new Promise<number | null>((resolve) => cli.on('exit', resolve)), output).toBe(0);
  expect(output).toMatch(/swapped in\./);
  for (const copy of COPIES) expect(await marked(copy)).toBe(false);

  // Each copy holds every trace once; the stats and threads (read from them now) count them all.
  for (const table of [t.tracesByHour, t.tracesByThread]) {
    const [copied] = await own.ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM ${ident(table)} FINAL WHERE deleted = 0`,
    );
    expect(Number(copied!.n), table).toBe(traces.length + 1);
  }
  const checked = new ClickHouseClient({ url: own.stack.config.CLICKHOUSE_URL, database: own.ch.database });
  for (const copy of COPIES) expect(await copyUsable(checked, copy)).toBe(true);
  await checked.close();
  expect(await statsOf(projectId)).toMatchObject({ trace_count: traces.length + 1, run_count: runs + after.length });
  expect(await threadsOf(projectId)).toEqual(withAfter);
  expect(await turns()).toBe(3);
  const [byThread] = await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM ${ident(t.runThreads)} FINAL`);
  expect(Number(byThread!.n)).toBe(runs + after.length);
  expect(await threadRunsOf(projectId)).toEqual(withAfterRuns);
});

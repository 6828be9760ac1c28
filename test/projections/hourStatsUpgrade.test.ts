// Upgrading a deployment from a release before the hour stats: its `traces` holds rows and there
// is no `traces_by_hour`. At start the processes mark it and say what to run; until then project
// stats read every trace of `traces` (as before), so none is missing; `npm run replay -- --view
// traces` (the command they name) swaps a filled traces_by_hour in and the stats read it.
import { expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { ownStack } from '../support/ownStack.ts';
import { makeTrace, postParts } from '../support/runFactory.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureReadModels } from '../../projections/readModels.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { HOUR_STATS_INCOMPLETE_MARKER, hourStatsUsable, warnIfHourStatsIncomplete } from '../../projections/traces/hourStatsUpgrade.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';

const own = ownStack('hour_upgrade', { PROJECTOR_FLUSH_MS: '20' });

const marked = async () =>
  (await own.ch.query(sql`SELECT 1 FROM system.tables WHERE database = ${own.ch.database} AND name = ${HOUR_STATS_INCOMPLETE_MARKER}`)).length > 0;
const statsOf = async (projectId: string) => {
  const res = await fetch(`${own.stack.url}/runs/stats`, {
    method: 'POST', headers: { 'x-api-key': own.stack.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ session: [projectId] }),
  });
  return (await res.json()) as { trace_count: number; run_count: number };
};

test('a database without traces_by_hour is marked at start, its stats read `traces` until `npm run replay -- --view traces`, then the hour stats', async () => {
  const traces = Array.from({ length: 8 }, (_, i) => makeTrace(1 + (i % 3), { session_name: 'hour-upgrade' }));
  for (const t of traces) await own.send(postParts(t));
  const runs = traces.flat().length;
  // (read from ClickHouse, not through the stats: the API checks for the marker at its first stats read)
  await waitFor('the traces projected', async () =>
    Number((await own.ch.query<{ n: string }>(sql`SELECT sum(run_count) AS n FROM traces FINAL`))[0]!.n) === runs, 30_000, 100);
  const [{ id: projectId }] = await own.ch.query<{ id: string }>(sql`SELECT toString(session_id) AS id FROM traces FINAL LIMIT 1`) as [{ id: string }];
  expect(await marked()).toBe(false); // a fresh database has nothing to upgrade

  // The deployment as an older release left it: `traces` with rows, none of the hour tables.
  await own.stack.projector.stop();
  for (const t of [LIVE_TABLES.tracesByHour, LIVE_TABLES.traceHourWrites, LIVE_TABLES.traceHourStats]) await own.ch.exec(sql`DROP TABLE ${ident(t)}`);

  // Start-up: the hour tables are created, and marked as missing what came before; the log says what to run.
  await ensureReadModels(own.ch);
  expect(await marked()).toBe(true);
  const logged: string[] = [];
  const logger = createLogger('hour-upgrade-test', 'warn');
  logger.error = ((_fields: unknown, message: string) => void logged.push(message)) as typeof logger.error;
  await warnIfHourStatsIncomplete(own.ch, logger);
  expect(logged.join('\n')).toContain('`npm run replay -- --view traces`');
  const fresh = new ClickHouseClient({ url: own.stack.config.CLICKHOUSE_URL, database: own.ch.database });
  expect(await hourStatsUsable(fresh)).toBe(false);
  await fresh.close();
  own.stack.startProjector();

  // A new trace after the upgrade; the stats count every trace, old ones included (read from `traces`).
  const after = makeTrace(2, { session_name: 'hour-upgrade' });
  await own.send(postParts(after));
  await waitFor('every trace in the stats meanwhile', async () => (await statsOf(projectId)).run_count === runs + after.length, 30_000, 100);
  expect((await statsOf(projectId)).trace_count).toBe(traces.length + 1);

  const cli = spawn(process.execPath, ['projections/replay/replayMain.ts', '--view', 'traces'], { cwd: repoRoot, env: { ...process.env, ...own.stack.env, LOG_LEVEL: 'warn' } });
  let output = '';
  cli.stdout.on('data', (d) => (output += d));
  cli.stderr.on('data', (d) => (output += d));
  expect(await new Promise<number | null>((resolve) => cli.on('exit', resolve)), output).toBe(0);
  expect(output).toMatch(/swapped in\./);
  expect(await marked()).toBe(false);

  // traces_by_hour holds every trace once; the stats (read from it now) count them all.
  const [byHour] = await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.tracesByHour)} FINAL WHERE deleted = 0`);
  expect(Number(byHour!.n)).toBe(traces.length + 1);
  const checked = new ClickHouseClient({ url: own.stack.config.CLICKHOUSE_URL, database: own.ch.database });
  expect(await hourStatsUsable(checked)).toBe(true);
  await checked.close();
  expect(await statsOf(projectId)).toMatchObject({ trace_count: traces.length + 1, run_count: runs + after.length });
});

// Upgrading a deployment whose `runs` table has an older release's sort key, ORDER BY (tenant_id,
// trace_id, id): the processes detect it at start and say what to run, and `npm run replay --
// --view runs` (the command they name) swaps in a table with today's key, rebuilt from the
// topics, with every run readable by id, by trace and in pages; nothing lost, nothing doubled.
// Meanwhile the projector merges a late patch of an older run into its row (it reads the old
// table by trace: run_keys knows nothing of the runs from before the upgrade).
import { expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { ownStack } from '../support/ownStack.ts';
import { makeTrace, postParts } from '../support/runFactory.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';
import { ident, raw, sql } from '../../platform/clickhouse/sql.ts';
import { createLogger } from '../../platform/logger.ts';
import { ensureReadModels, warnIfRunsTableOutdated } from '../../projections/readModels.ts';
import { runsTableOutdated } from '../../projections/runs/runsTable.ts';
import { createRunsTable, OLD_RUNS_SORTING_KEY, RUNS_SORTING_KEY } from '../../projections/runs/runsTable.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';

const own = ownStack('runs_key', { PROJECTOR_FLUSH_MS: '20' });

const sortingKey = async () =>
  (
    await own.ch.query<{ k: string }>(
      sql`SELECT sorting_key AS k FROM system.tables WHERE database = ${own.ch.database} AND name = 'runs'`,
    )
  )[0]!.k;
const postedRuns = async () =>
  (
    await own.ch.query<{ id: string }>(sql`SELECT toString(id) AS id FROM runs FINAL WHERE has_post = 1 ORDER BY id`)
  ).map((r) => r.id);
const api = async (path: string, body?: unknown) => {
  const headers = {
    'x-api-key': own.stack.apiKey,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const res = await fetch(`${own.stack.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('a runs table with the old sort key is detected, and `npm run replay -- --view runs` gives it the new key with every run', async () => {
  // Traces through the API, some patched in a later request.
  const traces = Array.from({ length: 12 }, (_, i) => makeTrace(1 + (i % 3), { session_name: `migration-${i % 2}` }));
  for (const t of traces) await own.send(postParts(t));
  for (const t of traces.slice(0, 6))
    await own.send(
      postParts(
        [{ ...t[0]!, inputs: undefined, outputs: { done: true }, end_time: new Date().toISOString() }],
        'patch',
      ),
    );
  const ids = traces
    .flat()
    .map((r) => r.id)
    .sort();
  await waitFor('the runs projected', async () => (await postedRuns()).length === ids.length, 30_000, 100);
  await waitFor(
    'the patches projected',
    async () =>
      Number(
        (await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM runs FINAL WHERE outputs != ''`))[0]!.n,
      ) === 6,
    30_000,
    100,
  );

  // The deployment as an older release left it: `runs` ordered by (tenant_id, trace_id, id), no run_keys.
  await own.stack.projector.stop();
  await own.ch.exec(sql`RENAME TABLE runs TO runs_current`);
  await own.ch.exec(
    raw(createRunsTable('runs').text.replace(`ORDER BY (${RUNS_SORTING_KEY})`, `ORDER BY (${OLD_RUNS_SORTING_KEY})`)),
  );
  await own.ch.exec(sql`INSERT INTO runs SELECT * FROM runs_current`);
  await own.ch.exec(sql`DROP TABLE runs_current`);
  await own.ch.exec(sql`DROP TABLE ${ident(LIVE_TABLES.runKeys)}`);
  expect((await sortingKey()).replace(/\s/g, '')).toBe(OLD_RUNS_SORTING_KEY.replace(/\s/g, ''));

  // Start-up: the read models are brought up to date around it, and the log says what to run.
  await ensureReadModels(own.ch);
  expect(await runsTableOutdated(own.ch)).toEqual({ outdated: true, sortingKey: await sortingKey() });
  const logged: string[] = [];
  const logger = createLogger('migration-test', 'warn');
  logger.error = ((_fields: unknown, message: string) => void logged.push(message)) as typeof logger.error;
  expect(await warnIfRunsTableOutdated(own.ch, logger)).toBe(true);
  expect(logged.join('\n')).toContain('`npm run replay -- --view runs`');

  // The upgraded projector starts (nothing of the old traces in its cache) and a late patch of an old run comes.
  own.stack.startProjector();
  const late = traces[7]![0]!;
  await own.send(
    postParts([{ ...late, inputs: undefined, outputs: { late: true }, end_time: new Date().toISOString() }], 'patch'),
  );
  const lateRow = async () =>
    (
      await own.ch.query<{ has_post: number; inputs: string; outputs: string }>(
        sql`SELECT has_post, inputs, outputs FROM runs FINAL WHERE id = toUUID(${late.id})`,
      )
    )[0]!;
  await waitFor('the late patch projected', async () => (await lateRow()).outputs !== '', 30_000, 100);
  expect(Number((await lateRow()).has_post)).toBe(1); // merged into the run, which stays visible
  expect(JSON.parse((await lateRow()).inputs)).toEqual(late.inputs);

  const cli = spawn(process.execPath, ['projections/replay/replayMain.ts', '--view', 'runs'], {
    cwd: repoRoot,
    env: { ...process.env, ...own.stack.env, LOG_LEVEL: 'warn' },
  });
  let output = '';
  cli.stdout.on('data', (d) => (output += d));
  cli.stderr.on('data', (d) => (output += d));
  expect(await new Promise<number | null>((resolve) => cli.on('exit', resolve)), output).toBe(0);
  expect(output).toMatch(/swapped in\./);

  // Today's key, nothing left over, every run once.
  expect(await sortingKey()).toBe(RUNS_SORTING_KEY);
  expect((await runsTableOutdated(own.ch)).outdated).toBe(false);
  expect(await postedRuns()).toEqual(ids);
  const leftovers = await own.ch.query(
    sql`SELECT name FROM system.tables WHERE database = ${own.ch.database} AND match(name, '_(replay|replaced)_')`,
  );
  expect(leftovers).toEqual([]);

  // Readable through the API: by id (with the patch merged), by trace, and in pages of each project.
  for (const t of traces) {
    const root = await api(`/runs/${t[0]!.id}`);
    expect(root.status).toBe(200);
    if (traces.indexOf(t) < 6) expect(root.body.outputs).toEqual({ done: true });
    if (t[0] === late) expect(root.body.outputs).toEqual({ late: true });
    const tree = await api(`/api/v2/traces/${t[0]!.id}/runs?project_id=${root.body.session_id as string}`);
    expect((tree.body.items as Array<{ id: string }>).map((r) => r.id)).toEqual(t.map((r) => r.id));
  }
  const projects = [
    ...new Set(
      await Promise.all(
        traces.slice(0, 2).map(async (t) => (await api(`/runs/${t[0]!.id}`)).body.session_id as string),
      ),
    ),
  ];
  const paged: string[] = [];
  for (const project of projects)
    paged.push(
      ...(
        (await api('/runs/query', { session: [project], select: ['id'], limit: 100 })).body.runs as Array<{
          id: string;
        }>
      ).map((r) => r.id),
    );
  expect(paged.sort()).toEqual(ids);
});

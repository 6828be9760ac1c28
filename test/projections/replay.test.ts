// Replay rebuilds every read model from the topics: the rebuilt tables equal the live ones row
// by row (checksums over every column but the version bookkeeping; feedback updated and deleted
// through the API included), and a swap done while ingestion goes on loses nothing and doubles
// nothing. The examples view too: every version of every example, hard deletions included.
import { expect, test } from 'vitest';
import { Admin } from '@platformatic/kafka';
import { spawn } from 'node:child_process';
import { v7 as uuidv7 } from 'uuid';
import { ownStack } from '../support/ownStack.ts';
import { makeTrace, postParts, type Part } from '../support/runFactory.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';
import { ident, join, raw, sql } from '../../platform/clickhouse/sql.ts';
import { createLogger } from '../../platform/logger.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { replay, REPLAY_FEEDS, REPLAY_VIEWS } from '../../projections/replay/replay.ts';
import { runsProjectorGroupId } from '../../projections/runsProjector.ts';
import { feedbackProjectorGroupId } from '../../projections/feedback/feedbackProjector.ts';
import { LIVE_TABLES, type ReadModelTables } from '../../projections/readModelTables.ts';

const own = ownStack('replay', { PROJECTOR_FLUSH_MS: '20' });
const send = (parts: Part[]) => own.send(parts);

/** Traces with threads, usage, errors, feedback, and patches in later requests. */
async function ingestTraces(count: number, tag: string): Promise<number> {
  let runs = 0;
  for (let i = 0; i < count; i++) {
    const trace = makeTrace(1 + (i % 4));
    trace[0]!.extra = { metadata: { thread_id: `${tag}-thread-${i % 7}`, i } };
    trace.slice(1).forEach(
      (r, j) =>
        (r.outputs = {
          usage_metadata: { input_tokens: i + j, output_tokens: 3, total_tokens: i + j + 3, total_cost: 0.001 * j },
        }),
    );
    if (i % 5 === 0) trace[1]!.error = 'boom';
    runs += trace.length;
    await send([
      ...postParts(trace),
      { name: `feedback.${uuidv7()}`, body: JSON.stringify({ run_id: trace[0]!.id, key: 'quality', score: i % 3 }) },
    ]);
    if (i % 2 === 0)
      await send(
        postParts(
          [
            {
              ...trace[0]!,
              inputs: undefined,
              extra: undefined,
              outputs: { answer: i },
              end_time: new Date().toISOString(),
            },
          ],
          'patch',
        ),
      );
  }
  return runs;
}

/**
 * count and an order-independent checksum of every column but `version`, per table, read FINAL:
 * of the live rows of traces_by_hour and traces_by_thread (where a trace left tombstones depends
 * on how its events were batched), not of the hour write counts (how many writes each hour had),
 * the hour stats (filled by readers) nor the hours' reach (a trace that moved leaves its reach
 * where it was, if it was written there: that too depends on the batches).
 */
async function checksums(tables: ReadModelTables): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, table] of Object.entries(tables)) {
    if (key === 'traceHourWrites' || key === 'traceHourStats' || key === 'traceHourReach') continue;
    const where = key === 'tracesByHour' || key === 'tracesByThread' ? raw('WHERE deleted = 0') : raw('');
    const columns = await own.ch.query<{ name: string; type: string }>(
      sql`SELECT name, type FROM system.columns WHERE database = ${own.ch.database} AND table = ${table} AND name != 'version' ORDER BY name`,
    );
    // cityHash64 of 18.16 takes neither UUIDs nor NULLs: hash those as text
    const hashable = columns.map(({ name, type }) =>
      type.startsWith('Nullable')
        ? sql`ifNull(toString(${ident(name)}), 'NULL')`
        : type === 'UUID'
          ? sql`toString(${ident(name)})`
          : ident(name),
    );
    const [row] = await own.ch.query<{ n: string; h: string }>(
      sql`SELECT count() AS n, toString(sum(cityHash64(${join(hashable)}))) AS h FROM ${ident(table)} FINAL ${where}`,
    );
    out[key] = `${row!.n}:${row!.h}`;
  }
  return out;
}

/**
 * The live tables' checksums once they equal `rebuilt`: the live projector writes a batch's runs
 * before its traces rows, so a count of runs can be complete while the last trace update is in flight.
 */
async function liveEquals(rebuilt: Record<string, string>): Promise<Record<string, string>> {
  let live: Record<string, string> = {};
  try {
    await waitFor(
      'the live tables to equal the rebuild',
      async () => JSON.stringify((live = await checksums(LIVE_TABLES))) === JSON.stringify(rebuilt),
      30_000,
      200,
    );
  } catch {
    expect(live).toEqual(rebuilt); // shows the difference
  }
  return live;
}

const projectOf = async (runId: string) =>
  (
    await own.ch.query<{ s: string }>(
      sql`SELECT toString(session_id) AS s FROM run_locations FINAL WHERE id = toUUID(${runId})`,
    )
  )[0]!.s;

const countOf = async (table: string) =>
  Number(
    (await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM ${ident(table)} FINAL WHERE has_post = 1`))[0]!.n,
  );

/**
 * Feedback through the API on projected runs: created, updated (score, comment), some deleted.
 * Returns how many items (deleted ones stay as tombstone rows).
 */
async function feedbackThroughApi(count: number): Promise<number> {
  const roots = await own.ch.query<{ id: string }>(
    sql`SELECT toString(id) AS id FROM runs FINAL WHERE is_root = 1 ORDER BY id LIMIT ${count}`,
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const headers = {
      'x-api-key': own.stack.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const res = await fetch(`${own.stack.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBe(200);
    return (await res.json()) as { id: string };
  };
  for (const [i, { id }] of roots.entries()) {
    const item = await call('POST', '/feedback', { run_id: id, key: 'api', score: i % 2, value: { i } });
    await call('PATCH', `/feedback/${item.id}`, { score: 1, comment: `updated ${i}` });
    if (i % 3 === 0) await call('DELETE', `/feedback/${item.id}`);
  }
  return roots.length;
}

test('every view has a feed to fill it, and each feed a consumer group of its own', () => {
  const fed = new Set(REPLAY_FEEDS.flatMap((f) => f.views));
  expect(REPLAY_VIEWS.filter((v) => !fed.has(v))).toEqual([]);
  expect(new Set(REPLAY_FEEDS.map((f) => f.name)).size).toBe(REPLAY_FEEDS.length);
});

test('a rebuild equals the live read models row by row', async () => {
  const runs = await ingestTraces(40, 'a');
  await waitFor('live projection', async () => (await countOf('runs')) === runs, 60_000, 100);
  const viaApi = await feedbackThroughApi(12);
  await waitFor(
    'feedback projected',
    async () =>
      Number((await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM feedback FINAL`))[0]!.n) === 40 + viaApi,
    30_000,
    100,
  );
  // wait for the last deletion too: the live table must be complete before it is compared
  await waitFor(
    'deletions projected',
    async () =>
      Number(
        (await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM feedback FINAL WHERE deleted = 1`))[0]!.n,
      ) === 4,
    30_000,
    100,
  );

  const blobs = new BlobStore(own.stack.config);
  const summary = await replay(own.stack.config, own.ch, createLogger('replay-test', 'warn'), {
    views: ['runs', 'traces', 'threads'],
    swap: false,
    blobs,
  });
  blobs.close();
  expect(summary.swapped).toBe(false);
  expect(summary.feeds).toEqual(['runs', 'feedback']);
  expect(summary.rows.runs).toBe(runs);
  expect(summary.rows.traces).toBe(40);
  const rebuilt = await checksums(summary.tables);
  const live = await liveEquals(rebuilt);
  expect(live.runs!.startsWith(`${runs}:`)).toBe(true);
  for (const table of Object.values(summary.tables)) await own.ch.exec(sql`DROP TABLE ${ident(table)}`);

  // and it leaves no consumer group of its own behind, and deletes no other
  const admin = new Admin({ clientId: 'replay-test', bootstrapBrokers: [own.stack.env.KAFKA_BROKERS!] });
  const groups = [...(await admin.listGroups()).keys()];
  await admin.close();
  expect(groups.filter((g) => g.startsWith(`${own.stack.config.KAFKA_TOPIC_PREFIX}replay-`))).toEqual([]);
  expect(groups).toEqual(
    expect.arrayContaining([runsProjectorGroupId(own.stack.config), feedbackProjectorGroupId(own.stack.config)]),
  );
});

test('a rebuild of the examples view equals the live examples, every version (hard deletions too)', async () => {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${own.stack.url}${path}`, {
      method,
      headers: { 'x-api-key': own.stack.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBe(200);
    return json;
  };
  const dataset = (await call('POST', '/datasets', { name: `replay-${uuidv7()}` })) as { id: string };
  const made = (await call(
    'POST',
    '/examples/bulk',
    Array.from({ length: 12 }, (_, i) => ({
      dataset_id: dataset.id,
      inputs: { i },
      outputs: { o: i },
      split: `s${i % 3}`,
    })),
  )) as Array<{ id: string }>;
  const ids = made.map((e) => e.id);
  await call(
    'PATCH',
    '/examples/bulk',
    ids.slice(0, 6).map((id, i) => ({ id, outputs: { o: i * 10 } })),
  );
  await call('PATCH', `/examples/${ids[0]}`, { metadata: { again: true } });
  await call('DELETE', `/examples?example_ids=${ids[6]}&example_ids=${ids[7]}`);
  await call('POST', '/v1/platform/datasets/examples/delete', { example_ids: [ids[8]], hard_delete: true });
  // 12 created, 7 changed, 2 deleted; the hard-deleted example's versions are gone
  await waitFor(
    'the examples projected',
    async () =>
      Number(
        (await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.examples)} FINAL`))[0]!.n,
      ) ===
      12 + 7 + 2 - 1,
    30_000,
    100,
  );

  const summary = await replay(own.stack.config, own.ch, createLogger('replay-test', 'warn'), {
    views: ['examples'],
    swap: false,
  });
  expect(summary.feeds).toEqual(['examples']);
  const pick = (sums: Record<string, string>) => ({ examples: sums.examples, exampleIds: sums.exampleIds });
  const rebuilt = pick(await checksums(summary.tables));
  expect(rebuilt.examples!.startsWith('20:')).toBe(true);
  expect(rebuilt.exampleIds!.startsWith('11:')).toBe(true);
  expect(pick(await checksums(LIVE_TABLES))).toEqual(rebuilt);
  for (const table of Object.values(summary.tables)) await own.ch.exec(sql`DROP TABLE ${ident(table)}`);
});

// A whole replay in a process of its own, with ingestion and reads beside it: 17-19 s in a
// full run, over a minute on a machine busier than that (each swap waits for a moment no read
// uses its table). A bound on waiting, not a timing assertion.
test('npm run replay swaps rebuilt tables in while ingestion goes on; nothing lost or doubled', {
  timeout: 180_000,
}, async () => {
  const before = await countOf('runs');
  const cli = spawn(process.execPath, ['projections/replay/replayMain.ts', '--view', 'all'], {
    cwd: repoRoot,
    env: { ...process.env, ...own.stack.env, LOG_LEVEL: 'warn' },
  });
  let output = '';
  cli.stdout.on('data', (d) => (output += d));
  cli.stderr.on('data', (d) => (output += d));
  let done = false;
  const exited = new Promise<number | null>((resolve) => cli.on('exit', (code) => ((done = true), resolve(code))));
  let added = 0;
  let traces = 0;
  // reads keep answering all the while, through the swap
  const [known] = await own.ch.query<{ id: string }>(
    sql`SELECT toString(id) AS id FROM runs FINAL WHERE is_root = 1 LIMIT 1`,
  );
  const readStatuses: number[] = [];
  const reading = (async () => {
    const headers = { 'x-api-key': own.stack.apiKey, 'content-type': 'application/json' };
    while (!done) {
      readStatuses.push((await fetch(`${own.stack.url}/runs/${known!.id}`, { headers })).status);
      readStatuses.push(
        (
          await fetch(`${own.stack.url}/runs/query`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ is_root: true, limit: 5 }),
          })
        ).status,
      );
      readStatuses.push(
        (
          await fetch(`${own.stack.url}/api/v2/traces/${known!.id}/runs?project_id=${await projectOf(known!.id)}`, {
            headers,
          })
        ).status,
      );
    }
  })();
  while (!done) {
    added += await ingestTraces(5, `b${traces}`); // all the while the replay runs
    traces += 5;
  }
  await reading;
  expect(await exited, output).toBe(0);
  expect(traces).toBeGreaterThan(5);
  expect(readStatuses.length).toBeGreaterThan(10);
  expect(readStatuses.filter((s) => s !== 200)).toEqual([]);
  expect(output).toMatch(/events\/s/); // the progress bar and the summary
  expect(output).toMatch(/replayed \d+ events in [\d.]+ s .*swapped in\./);

  await waitFor(
    'every run in the swapped-in tables',
    async () => (await countOf('runs')) === before + added,
    60_000,
    200,
  );
  const tables = await own.ch.query<{ name: string }>(
    sql`SELECT name FROM system.tables WHERE database = ${own.ch.database} AND match(name, '_(replay|replaced)_')`,
  );
  expect(tables).toEqual([]);
  await waitFor(
    'traces complete',
    async () =>
      Number((await own.ch.query<{ n: string }>(sql`SELECT count() AS n FROM traces FINAL`))[0]!.n) === 40 + traces,
    30_000,
    200,
  );

  // and the swapped-in tables still equal a fresh rebuild (the examples of the test before too)
  const summary = await replay(own.stack.config, own.ch, createLogger('replay-test', 'warn'), {
    views: ['runs', 'traces', 'examples'],
    swap: false,
    blobs: new BlobStore(own.stack.config),
  });
  await liveEquals(await checksums(summary.tables));
});

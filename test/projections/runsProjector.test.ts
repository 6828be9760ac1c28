// The runs projector under cache pressure (with room for only a few runs it keeps evicting traces
// and reading them back from ClickHouse, and every post and later patch still merges), with runs
// that change their place in `runs` (its key: project, is_root, start time, id), with
// events it cannot read (kept in tracing.runs.dead-letter, test/support/deadLetters.ts), and with
// an event whose rows ClickHouse refuses (kept there too, not retried forever), and with runs that
// name another thread (run_threads). How it writes a batch (in parts, in which order, read again
// after a failure) is runsProjectorWrites.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { stackClickHouse, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { makeTrace, multipartBody, postParts, runOp, type Part } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { threadNices } from '../support/procStat.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { EventLog, event } from '../../platform/kafka/eventLog.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { encodeEvent } from '../../schemas/registry.ts';
import type { RunOp } from '../../schemas/events.generated.ts';
import { runsProjectorGroupId } from '../../projections/runsProjector.ts';
import {
  appendPoison,
  committedOffset,
  deadLetterHeader,
  expectDeadLettered,
  findDeadLetter,
  poisonMessages,
} from '../support/deadLetters.ts';

let stack: TracingStack;
beforeAll(async () => {
  stack = await startTracingStack('cache', {
    PROJECTOR_CACHE_RUNS: '3',
    PROJECTOR_FLUSH_MS: '20',
    PROJECTOR_NICE: '5',
  });
});
afterAll(() => stack?.stop());

test('posts and later patches merge even when their traces were evicted from the cache', async () => {
  const traces = Array.from({ length: 30 }, () => makeTrace(3));
  const send = async (parts: ReturnType<typeof postParts>) => {
    const { body, contentType } = multipartBody(parts);
    const res = await fetch(`${stack.url}/runs/multipart`, {
      method: 'POST',
      headers: { 'x-api-key': stack.apiKey, 'content-type': contentType },
      body,
    });
    expect(res.status).toBe(202);
  };
  for (const t of traces) await send(postParts(t));
  await new Promise((r) => setTimeout(r, 500)); // let the posts be projected and evicted
  const end = new Date().toISOString();
  for (const t of traces)
    await send(
      postParts(
        t.map((r) => ({ ...r, inputs: undefined, outputs: { done: r.id }, end_time: end })),
        'patch',
      ),
    );

  const ch = ClickHouseClient.fromConfig(stack.config);
  const rows = await waitFor(
    'all runs merged',
    async () => {
      const r = await ch.query<{ id: string; inputs: string; outputs: string; status: string }>(
        sql`SELECT toString(id) AS id, inputs, outputs, status FROM runs FINAL`,
      );
      return r.length === 120 && r.every((x) => x.status === 'success') ? r : null;
    },
    60_000,
    200,
  );
  for (const row of rows) {
    expect(JSON.parse(row.outputs)).toEqual({ done: row.id });
    expect(row.inputs).not.toBe(''); // the post's inputs survived the reload
  }
  await ch.close();
});

const send = async (parts: Part[]) => {
  const { body, contentType } = multipartBody(parts);
  const res = await fetch(`${stack.url}/runs/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': contentType },
    body,
  });
  expect(res.status).toBe(202);
};
const api = async (method: string, path: string, body?: unknown) => {
  const headers = { 'x-api-key': stack.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(`${stack.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

// `runs` is keyed by project and start time, which a run may not have yet (a patch before its
// post) or may change (a patch). Each step is projected in its own batch, and the traces are
// evicted from the cache in between (room for 3 runs), so each move is one the projector makes
// against rows it read back from ClickHouse.
test('a run that changes place in runs (a patch before its post; a patch moving its project and start time) is read once, at its new place', async () => {
  const ch = ClickHouseClient.fromConfig(stack.config);
  const [root, child] = makeTrace(1, { session_name: 'key-first' });
  const filler = () => send(postParts(makeTrace(3))); // evicts the trace from the projector's cache
  const rowsOf = (id: string) =>
    ch.query<{ has_post: number; session_id: string; start_time: string; outputs: string }>(
      sql`SELECT has_post, toString(session_id) AS session_id, toString(start_time) AS start_time, outputs FROM runs FINAL WHERE id = toUUID(${id})`,
    );

  // The child's patch first: no project, no start time.
  const { start_time: _start, session_name: _project, inputs: _inputs, ...bare } = child!;
  await send([
    { name: `patch.${child!.id}`, body: JSON.stringify(bare) },
    { name: `patch.${child!.id}.outputs`, body: JSON.stringify({ early: true }) },
  ]);
  await waitFor('the early patch projected', async () => (await rowsOf(child!.id)).length === 1, 30_000, 100);
  await filler();
  await send(postParts([root!, child!]));
  await waitFor(
    'both posts projected',
    async () => {
      const rows = [...(await rowsOf(root!.id)), ...(await rowsOf(child!.id))];
      return rows.filter((r) => Number(r.has_post) === 1).length === 2;
    },
    30_000,
    100,
  );
  const firstProject = (await rowsOf(root!.id))[0]!.session_id;
  await filler();
  // The root moves an hour back into another project.
  const earlier = Date.parse(root!.start_time) * 1000 - 3_600_000_000;
  await send(
    postParts(
      [
        {
          ...root!,
          inputs: undefined,
          start_time: new Date(earlier / 1000).toISOString(),
          session_name: 'key-moved',
          outputs: { moved: true },
        },
      ],
      'patch',
    ),
  );
  await waitFor(
    'the move projected',
    async () => (await rowsOf(root!.id)).some((r) => Number(r.start_time) === earlier),
    30_000,
    100,
  );
  await filler();

  // In `runs`: at each run's old place the newest row is a tombstone (has_post = 0), its current place holds the merged run.
  const rootRows = await rowsOf(root!.id);
  const posted = rootRows.filter((r) => Number(r.has_post) === 1);
  expect(posted).toHaveLength(1);
  expect(Number(posted[0]!.start_time)).toBe(earlier);
  expect(posted[0]!.session_id).not.toBe(firstProject);
  expect(JSON.parse(posted[0]!.outputs)).toEqual({ moved: true });
  expect(rootRows).toHaveLength(2);
  const childRows = await rowsOf(child!.id);
  expect(childRows.filter((r) => Number(r.has_post) === 1).map((r) => [r.session_id, JSON.parse(r.outputs)])).toEqual([
    [firstProject, { early: true }],
  ]);

  // Through the API: by id, by trace, and in pages of each project, each run once.
  const byId = await api('GET', `/runs/${root!.id}`);
  expect([byId.session_id, byId.outputs]).toEqual([posted[0]!.session_id, { moved: true }]);
  expect((await api('GET', `/runs/${child!.id}`)).outputs).toEqual({ early: true });
  const tree = async (project: string) =>
    ((await api('GET', `/api/v2/traces/${root!.id}/runs?project_id=${project}`)).items as Array<{ id: string }>).map(
      (r) => r.id,
    );
  expect(await tree(posted[0]!.session_id)).toEqual([root!.id]);
  expect(await tree(firstProject)).toEqual([child!.id]);
  const page = async (project: string) =>
    (
      (await api('POST', '/runs/query', { session: [project], trace: root!.id, select: ['id'] })).runs as Array<{
        id: string;
      }>
    ).map((r) => r.id);
  expect(await page(firstProject)).toEqual([child!.id]);
  expect(await page(posted[0]!.session_id)).toEqual([root!.id]);
  await ch.close();
});

test('events the projector cannot read go to the dead-letter topic byte for byte, and the good event after them is projected', async () => {
  const tenantId = randomUUID();
  const [root] = makeTrace(0);
  const key = `${tenantId}/${root!.trace_id}`;
  const op = runOp({
    run_id: root!.id,
    session_id: randomUUID(),
    dotted_order: root!.dotted_order,
    name: 'after-poison',
    run_type: 'chain',
    start_time: Date.now() * 1000,
    inputs: '{"x":1}',
  });
  const good = {
    tenant_id: tenantId,
    trace_id: root!.trace_id,
    request_id: randomUUID(),
    received_at: Date.now() * 1000,
    ops: [op],
  };
  const poisons = poisonMessages(key, encodeEvent('RunOpsAppended', good));
  await appendPoison(stack.config, TOPICS.runs, poisons);
  const log = new EventLog(stack.config, 'test-good');
  await log.append([event('RunOpsAppended', key, good)]);
  await log.close();

  const ch = stackClickHouse(stack);
  await waitFor(
    'the run after the unreadable events',
    async () =>
      (
        await ch.query(
          sql`SELECT 1 FROM runs FINAL WHERE tenant_id = toUUID(${tenantId}) AND id = toUUID(${root!.id}) AND name = 'after-poison'`,
        )
      ).length === 1,
    30_000,
    200,
  );
  await ch.close();
  await expectDeadLettered(stack.config, TOPICS.runs, runsProjectorGroupId(stack.config), poisons);
});

test('an event whose rows ClickHouse will always refuse goes to the dead-letter topic with the reason; the events beside it are projected', async () => {
  const tenantId = randomUUID();
  const chainOp = (runId: string, traceId: string, dottedOrder: string, name: string): RunOp =>
    runOp({
      run_id: runId,
      session_id: randomUUID(),
      dotted_order: dottedOrder,
      name,
      run_type: 'chain',
      start_time: Date.now() * 1000,
      inputs: '{"x":1}',
    });
  const eventOf = (op: RunOp, traceId: string) => ({
    tenant_id: tenantId,
    trace_id: traceId,
    request_id: randomUUID(),
    received_at: Date.now() * 1000,
    ops: [op],
  });
  const [before, sibling] = makeTrace(1);
  const [after] = makeTrace(0);
  // A run id that is not a UUID, as a writer that did not check it would append: the schema takes
  // any string, the runs table's UUID column never will. In the trace of the run before it, so
  // the projector's cache of that trace holds the refused run too until it forgets it.
  const refusedEvent = eventOf(chainOp('run-42', before!.trace_id, sibling!.dotted_order, 'refused'), before!.trace_id);
  const keyOf = (traceId: string) => `${tenantId}/${traceId}`;
  const log = new EventLog(stack.config, 'test-refused');
  await log.append([
    event(
      'RunOpsAppended',
      keyOf(before!.trace_id),
      eventOf(chainOp(before!.id, before!.trace_id, before!.dotted_order, 'before-refused'), before!.trace_id),
    ),
    event('RunOpsAppended', keyOf(before!.trace_id), refusedEvent),
    event(
      'RunOpsAppended',
      keyOf(after!.trace_id),
      eventOf(chainOp(after!.id, after!.trace_id, after!.dotted_order, 'after-refused'), after!.trace_id),
    ),
  ]);
  await log.close();

  const ch = stackClickHouse(stack);
  await waitFor(
    'the runs appended beside the refused one',
    async () => {
      const rows = await ch.query<{ name: string }>(
        sql`SELECT name FROM runs FINAL WHERE tenant_id = toUUID(${tenantId}) ORDER BY name`,
      );
      return rows.length === 2 ? rows : null;
    },
    30_000,
    200,
  ).then((rows) => expect(rows.map((r) => r.name)).toEqual(['after-refused', 'before-refused']));
  await ch.close();

  const dead = await findDeadLetter(stack.config, TOPICS.runs, keyOf(before!.trace_id));
  expect(dead.value.equals(encodeEvent('RunOpsAppended', refusedEvent).value), 'kept byte for byte').toBe(true);
  // refused before it is sent: the insert's encoder (RowBinary) names the column and the value
  expect(deadLetterHeader(dead, 'dead-letter-reason')).toMatch(/refused it: column id: not a UUID: "run-42"/);
  const [, partition, offset] = deadLetterHeader(dead, 'dead-letter-source')!.match(/\/(\d+)\/(\d+)$/)!;
  await waitFor(
    'the committed offset past the refused event',
    async () =>
      (await committedOffset(stack.config, runsProjectorGroupId(stack.config), TOPICS.runs, Number(partition))) >
      BigInt(offset!),
    30_000,
    100,
  );
});

// run_threads, where filters on thread_id find their runs, follows a run that names another
// thread at its place, and one that moves, with the trace read back from ClickHouse each time.
test('a filter on thread_id finds a run after a patch names another thread, and after a patch moves it', async () => {
  const project = `thread-moves-${randomUUID().slice(0, 8)}`;
  const [root, child] = makeTrace(1, { session_name: project, extra: { metadata: { thread_id: `${project}-a` } } });
  const filler = () => send(postParts(makeTrace(3)));
  await send(postParts([root!, child!]));
  const threadRuns = async (thread: string) =>
    (
      (await api('POST', '/runs/query', { filter: `eq(thread_id, "${thread}")`, select: ['id'] })).runs as Array<{
        id: string;
      }>
    )
      .map((r) => r.id)
      .sort();
  await waitFor('both runs in the thread', async () => (await threadRuns(`${project}-a`)).length === 2, 30_000, 100);
  await filler();
  // The child names another thread, at the same place.
  await send(
    postParts(
      [
        {
          ...child!,
          inputs: undefined,
          extra: { metadata: { thread_id: `${project}-b` } },
          outputs: { renamed: true },
        },
      ],
      'patch',
    ),
  );
  await waitFor(
    'the child in its new thread',
    async () => (await threadRuns(`${project}-b`)).length === 1,
    30_000,
    100,
  );
  await filler();
  // The root moves an hour back, keeping its thread.
  const earlier = new Date(Date.parse(root!.start_time) - 3_600_000).toISOString();
  await send(postParts([{ ...root!, inputs: undefined, start_time: earlier, outputs: { moved: true } }], 'patch'));
  await waitFor(
    'the move projected',
    async () => JSON.stringify((await api('GET', `/runs/${root!.id}`)).outputs) === '{"moved":true}',
    30_000,
    100,
  );
  await filler();

  expect(await threadRuns(`${project}-a`)).toEqual([root!.id]);
  expect(await threadRuns(`${project}-b`)).toEqual([child!.id]);
  const both = (
    await api('POST', '/runs/query', {
      filter: `in(thread_id, ["${project}-a", "${project}-b"])`,
      select: ['id', 'start_time'],
    })
  ).runs as Array<{ id: string }>;
  expect(both.map((r) => r.id)).toEqual([child!.id, root!.id]); // newest first: the root is an hour older now
});

test.runIf(process.platform === 'linux')('the projectors run at PROJECTOR_NICE, every thread of their process', () => {
  const nices = threadNices(stack.projector.pid);
  expect(nices.length).toBeGreaterThan(1);
  expect(new Set(nices)).toEqual(new Set([stack.config.PROJECTOR_NICE]));
  expect(stack.config.PROJECTOR_NICE).toBe(5);
});

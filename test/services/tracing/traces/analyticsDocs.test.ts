// Every SQL block of docs/analytics.md runs against a seeded database and answers what the
// text around it says, so the documented tables, columns and queries stay true.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { inject } from 'vitest';
import { raw } from '../../../../platform/clickhouse/sql.ts';
import { formatDottedTimestamp } from '../../../../platform/time.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';
import {
  fillRunKeys,
  fillTraceCopies,
  runRow,
  scratchDatabase,
  SECOND,
  traceRow,
  type ScratchDatabase,
} from './readModelFixture.ts';

const doc = readFileSync(join(repoRoot, 'docs', 'analytics.md'), 'utf8');
const blocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
const block = (marker: string) => {
  const found = blocks.filter((b) => b.includes(marker));
  expect(found, `one SQL block containing ${marker}`).toHaveLength(1);
  return found[0]!;
};

const HOUR = 3600 * SECOND;
const tenant = randomUUID();
const project = randomUUID();
const otherProject = randomUUID();
const now = Date.now() * 1000;
// Ten traces in the last few hours, every third errored, threads "busy" (6 traces) and "quiet" (2).
const traces = Array.from({ length: 10 }, (_, i) => ({
  trace_id: randomUUID(),
  start_time: now - (i + 1) * 10 * 60 * SECOND,
  status: i % 3 === 0 ? 'error' : 'success',
  thread_id: i < 6 ? 'busy' : i < 8 ? 'quiet' : '',
}));

let db: ScratchDatabase;
beforeAll(async () => {
  db = await scratchDatabase(inject('tracingEnv').CLICKHOUSE_URL!, 'analytics_docs');
  await db.ch.insert('traces', [
    ...traces.map((t, i) =>
      traceRow({
        tenant_id: tenant,
        session_id: project,
        ...t,
        end_time: t.start_time + (i + 1) * SECOND,
        first_token_time: i % 2 ? t.start_time + SECOND / 10 : null,
        run_count: 3,
        run_types: ['chain', 'llm'],
        run_type_counts: [1, 2],
        statuses: [t.status, 'success'],
        status_counts: [1, 2],
        total_tokens: 100 * (i + 1),
        total_cost: 0.001 * (i + 1),
      }),
    ),
    traceRow({
      tenant_id: tenant,
      trace_id: randomUUID(),
      session_id: otherProject,
      start_time: now - HOUR,
      thread_id: 'elsewhere',
    }),
  ]);
  const t0 = traces[0]!;
  const rootOrder = formatDottedTimestamp(t0.start_time) + t0.trace_id;
  const llm = [randomUUID(), randomUUID()];
  await db.ch.insert('runs', [
    runRow({
      tenant_id: tenant,
      trace_id: t0.trace_id,
      id: t0.trace_id,
      session_id: project,
      dotted_order: rootOrder,
      start_time: t0.start_time,
      total_tokens: 1500,
    }),
    ...llm.map((id, i) =>
      runRow({
        tenant_id: tenant,
        trace_id: t0.trace_id,
        id,
        session_id: project,
        parent_run_id: t0.trace_id,
        run_type: 'llm',
        name: `llm-${i}`,
        dotted_order: `${rootOrder}.${formatDottedTimestamp(t0.start_time + (i + 1) * 1000)}${id}`,
        start_time: t0.start_time + (i + 1) * 1000,
        total_tokens: 500 * (i + 1),
      }),
    ),
  ]);
  await fillRunKeys(db.ch);
  await fillTraceCopies(db.ch);
});
afterAll(() => db?.drop());

test('the doc has four to six queries, and each runs and finds the seeded rows', async () => {
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  expect(blocks.length).toBeLessThanOrEqual(6);
  for (const sql of blocks) {
    const rows = await db.ch.query(raw(sql));
    expect(rows.length, sql).toBeGreaterThan(0);
  }
});

test('daily error rate per project', async () => {
  const rows = await db.ch.query<{
    session_id: string;
    trace_count: string;
    errored_traces: string;
    error_rate: number;
  }>(raw(block('error_rate')));
  const ours = rows.filter((r) => r.session_id === project);
  expect(ours.reduce((s, r) => s + Number(r.trace_count), 0)).toBe(10);
  expect(ours.reduce((s, r) => s + Number(r.errored_traces), 0)).toBe(4);
});

test('the top LLM runs by tokens are the LLM runs, most tokens first', async () => {
  const rows = await db.ch.query<{ name: string; total_tokens: string }>(raw(block("run_type = 'llm'")));
  expect(rows.map((r) => [r.name, Number(r.total_tokens)])).toEqual([
    ['llm-1', 1000],
    ['llm-0', 500],
  ]);
});

test('threads with the most traces', async () => {
  const rows = await db.ch.query<{ thread_id: string; trace_count: string; errored_traces: string }>(
    raw(block('FROM threads')),
  );
  expect(rows.map((r) => [r.thread_id, Number(r.trace_count)])).toEqual([
    ['busy', 6],
    ['quiet', 2],
    ['elsewhere', 1],
  ]);
  expect(Number(rows[0]!.errored_traces)).toBe(2); // traces 0 and 3
});

test('runs per run type per hour sum to the runs of the traces', async () => {
  const rows = await db.ch.query<{ run_type: string; runs: string }>(raw(block('ARRAY JOIN')));
  const byType = (type: string) => rows.filter((r) => r.run_type === type).reduce((s, r) => s + Number(r.runs), 0);
  expect(byType('chain')).toBe(11);
  expect(byType('llm')).toBe(20);
});
